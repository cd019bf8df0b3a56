# frozen_string_literal: true

require "etc"
require_relative "../../error"

module Rackbench
  module Load
    module Remote
      # One load host as given to --load-host: [USER@]HOST[:PORT][=WEIGHT].
      # USER defaults to the local user, PORT to 22; WEIGHT (a number above
      # 0) replaces the host's core count when its share is split
      # (Remote::Shares). An IPv6 address goes in brackets: [::1]:2222.
      Host = Struct.new(:user, :hostname, :port, :weight, keyword_init: true) do
        def label
          "#{user}@#{hostname.include?(':') ? "[#{hostname}]" : hostname}:#{port}"
        end

        alias_method :to_s, :label

        # As given back to --load-host (with its weight).
        def spec
          weight ? "#{label}=#{weight.to_s.sub(/\.0\z/, '')}" : label
        end

        def loopback?
          hostname == "localhost" || hostname.start_with?("127.") || hostname == "::1"
        end
      end

      class Host
        FORM = /\A(?:(?<user>[^@\s]+)@)?(?:\[(?<v6>[^\]]+)\]|(?<name>[^:@=\s\[\]]+))(?::(?<port>\d+))?(?:=(?<weight>[0-9.]+))?\z/.freeze

        def self.parse(text)
          m = FORM.match(text.to_s.strip)
          port = m && (m[:port] ? Integer(m[:port], 10) : 22)
          weight = m && m[:weight] && Float(m[:weight], exception: false)
          unless m && port.between?(1, 65_535) && (m[:weight].nil? || weight&.positive?)
            raise UsageError, "--load-host #{text.to_s.inspect} must look like [USER@]HOST[:PORT][=WEIGHT], " \
                              "e.g. root@10.0.0.5:22 or loadgen2=4"
          end

          new(user: m[:user] || Etc.getpwuid.name, hostname: m[:v6] || m[:name], port: port, weight: weight)
        end

        # Hosts from the command line or a plan file; a host given twice is
        # refused (it would run two wrk's that each think they have its cores).
        def self.parse_all(list)
          hosts = Array(list).flatten.map { |h| h.is_a?(Host) ? h : parse(h) }
          twice = hosts.map(&:label).tally.find { |_, n| n > 1 }&.first
          raise UsageError, "load host #{twice} is given twice; give each host once (=WEIGHT changes its share)" if twice

          hosts
        end
      end
    end
  end
end
