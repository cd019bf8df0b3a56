# frozen_string_literal: true

module Rackbench
  module CLI
    # rackbench run's options for load from other hosts (Load::Remote) and
    # the address servers listen on. Each sets a key of Config::DEFAULTS.
    module RemoteOptions
      module_function

      def define(o, cli)
        define_ssh(o, cli)
        o.on("--bind ADDRESS", "address servers and nginx listen on, one the load hosts reach (default 127.0.0.1)") { |v| cli[:bind] = v }
      end

      # The load hosts and how to reach them: also doctor's.
      def define_ssh(o, cli)
        o.on("--load-host [USER@]HOST[:PORT]", "load from this host over SSH (repeatable; engines wrk and wrk-open; " \
                                               "=WEIGHT after it replaces its cores in the split)") { |v| (cli[:load_hosts] ||= []) << v }
        o.on("--ssh-key FILE", "with --load-host: a private key (default: ssh-agent's and ~/.ssh's keys; never a password)") { |v| cli[:ssh_key] = v }
        o.on("--ssh-known-hosts FILE", "with --load-host: known_hosts holding the hosts' keys (default ~/.ssh/known_hosts)") { |v| cli[:ssh_known_hosts] = v }
      end
    end
  end
end
