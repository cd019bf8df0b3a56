# frozen_string_literal: true

require "sshkit"
require "net/ssh"
require_relative "../../error"

module Rackbench
  module Load
    module Remote
      # SSH to load hosts through SSHKit (Capistrano's and Kamal's execution
      # layer) on net-ssh. Security stance: keys only (the agent's, or
      # --ssh-key FILE), never a password or passphrase prompt; a host's key
      # must already be in known_hosts (--ssh-known-hosts FILE, default
      # ~/.ssh/known_hosts): an unknown or changed key is refused, never
      # accepted on first use. Nothing is installed on a load host.
      #
      # Commands run with a pseudo-terminal: when the connection drops
      # (rackbench killed, network lost), sshd closes the terminal and the
      # kernel hangs up (SIGHUP) the command and its wrk, so no wrk outlives
      # its rackbench (a clean stop kills it explicitly: RemoteWrk#stop).
      class Ssh
        CONNECT_TIMEOUT_S = 10

        def self.configure!
          return if @configured

          SSHKit.config.output = SSHKit::Formatter::BlackHole.new($stderr)
          SSHKit::Backend::Netssh.configure { |c| c.pty = true }
          # No connection cache: a cached connection to a host whose sshd
          # restarted fails ("closed stream"), and none stays open after a run.
          SSHKit::Backend::Netssh.pool.idle_timeout = 0
          @configured = true
        end

        def initialize(key: nil, known_hosts: nil)
          @key = key
          @known_hosts = known_hosts || File.expand_path("~/.ssh/known_hosts")
          self.class.configure!
        end

        # Runs the block in an SSHKit backend for host (its #capture,
        # #execute, #upload!); SSH failures become one line naming the host.
        def on(host, &block)
          ssh_host = SSHKit::Host.new(hostname: host.hostname, port: host.port, user: host.user)
          ssh_host.ssh_options = options
          result = nil
          SSHKit::Backend::Netssh.new(ssh_host) { result = instance_exec(&block) }.run
          result
        rescue StandardError => e
          raise Error, "load host #{host.label}: #{reason(e)}"
        end

        private

        def options
          opts = { auth_methods: %w[publickey], non_interactive: true, number_of_password_prompts: 0,
                   verify_host_key: :always, user_known_hosts_file: @known_hosts, global_known_hosts_file: [],
                   timeout: CONNECT_TIMEOUT_S }
          opts[:keys] = [@key] if @key
          opts
        end

        def reason(error)
          error = error.cause if error.is_a?(SSHKit::Command::Failed) && error.cause
          case error
          when Errno::ECONNREFUSED then "connection refused: is sshd running there, on that port?"
          when Net::SSH::ConnectionTimeout, Errno::ETIMEDOUT, Errno::EHOSTUNREACH, Errno::ENETUNREACH, SocketError
            "unreachable (#{error.message.strip[0, 80]}): check the address and that this machine can reach it"
          when Net::SSH::AuthenticationFailed
            "its sshd refused our keys (#{error.message.strip[0, 80]}); give --ssh-key FILE (or load the key into " \
            "ssh-agent) and add its public key to that user's authorized_keys (rackbench never uses passwords)"
          when Net::SSH::HostKeyMismatch
            "its host key does not match the one in #{@known_hosts} (#{error.message.strip[0, 100]}); if the host " \
            "was reinstalled, replace its line there (ssh-keygen -R HOST), otherwise do not connect"
          when Net::SSH::HostKeyUnknown
            "its host key is not in #{@known_hosts}; add it after checking it (ssh-keyscan -p PORT HOST >> that " \
            "file, or connect once with ssh), or give --ssh-known-hosts FILE"
          when Net::SSH::Exception, SystemCallError, IOError
            "ssh failed: #{error.message.strip[0, 120]}"
          else
            raise error
          end
        end
      end
    end
  end
end
