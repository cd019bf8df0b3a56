# frozen_string_literal: true

require "socket"
require_relative "host"
require_relative "../../error"

module Rackbench
  module Load
    module Remote
      # Checks of the load-host settings (Config keys load_hosts, ssh_key,
      # ssh_known_hosts, bind), where they enter (Config.validate): all
      # before any server boots or any host is contacted.
      module Settings
        ENGINES = %w[wrk wrk-open].freeze
        LOOPBACK = /\A(127\.|::1\z|localhost\z)/.freeze

        module_function

        ORDER = 170 # the last of Config::RULES (plan/config.rb)

        # Returns the settings it settles (the bind address, the hosts
        # parsed, the key files' full paths); cfg is read only.
        def check(cfg)
          settled = { bind: bind(cfg[:bind]), load_hosts: Host.parse_all(cfg[:load_hosts]) }
          return settled if settled[:load_hosts].empty?

          engine(cfg[:engine])
          settled[:ssh_key] = file(cfg[:ssh_key], "--ssh-key", "a private key file") if cfg[:ssh_key]
          settled[:ssh_known_hosts] = file(cfg[:ssh_known_hosts], "--ssh-known-hosts", "a known_hosts file") if cfg[:ssh_known_hosts]
          reachable(cfg.merge(settled))
          settled
        end

        def engine(name)
          return if ENGINES.include?(name)

          raise UsageError, "--load-host works with --engine wrk or wrk-open only (#{name} cannot run on other hosts " \
                            "or export a latency histogram to merge); drop --engine #{name} or --load-host"
        end

        def file(path, option, what)
          full = File.expand_path(path.to_s)
          return full if File.file?(full) && File.readable?(full)

          raise UsageError, "#{option} #{path} is not #{what} this user can read; check the path"
        end

        # An address this machine has (any of its interfaces, or any of
        # 127.0.0.0/8, all of which Linux's loopback answers), kept as given.
        def bind(address)
          address = address.to_s.strip
          return address if local_addresses.include?(address) || address.match?(/\A127\.\d+\.\d+\.\d+\z/)

          raise UsageError, "--bind #{address.inspect} is not an address of this machine (it has " \
                            "#{local_addresses.first(6).join(', ')}); give one of them, one the load hosts can reach"
        end

        def local_addresses
          Socket.ip_address_list.map { |a| a.ip_address.sub(/%.*/, "") }
        end

        # Servers bound to loopback can only be reached from this machine: a
        # load host elsewhere would load itself.
        def reachable(cfg)
          return unless loopback?(cfg[:bind]) && cfg[:url].nil?

          far = cfg[:load_hosts].reject(&:loopback?)
          return if far.empty?

          raise UsageError, "load host #{far.first.label} cannot reach servers listening on #{cfg[:bind]} (loopback): " \
                            "give --bind ADDRESS, an address of this machine it can reach"
        end

        def loopback?(address)
          address.match?(LOOPBACK)
        end

        # The warning a non-loopback --bind prints (nil for loopback).
        def bind_warning(address)
          return nil if loopback?(address)

          "servers listen on #{address}, not only on loopback: anyone who can reach #{address} can reach them " \
            "during the run (use a private network, or --bind 127.0.0.1)"
        end
      end
    end
  end
end
