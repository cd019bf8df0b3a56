# frozen_string_literal: true

require_relative "response"

module Rackbench
  module Workload
    module Arena
      # GET /server — which server, process and Ruby answered: lets a
      # benchmark check that the server it started is the one replying, and
      # how its workers are spread (pid/ppid). The name is RACKBENCH_SERVER
      # when set, else the first server constant loaded in this process (a
      # bundle that loads several servers can mislead the guess; set the
      # variable to be sure), else "unknown".
      module ServerInfo
        ENV_KEY = "RACKBENCH_SERVER"
        DETECTED = [%w[Puma puma], %w[Unicorn unicorn], %w[Thin thin], %w[PhusionPassenger passenger],
                    %w[Falcon falcon], %w[Pitchfork pitchfork]].freeze
        RACK_KEYS = %w[SERVER_SOFTWARE SERVER_PROTOCOL HTTP_VERSION rack.multithread rack.multiprocess
                       rack.run_once rack.hijack?].freeze

        module_function

        def call(env)
          Response.json(report(env))
        end

        def report(env)
          { server: name, pid: Process.pid, ppid: Process.ppid, ruby: RUBY_DESCRIPTION, yjit: yjit?,
            env: RACK_KEYS.to_h { |key| [key, env[key]] } }
        end

        def name(process_env = ENV)
          given = process_env[ENV_KEY]
          return given unless given.nil? || given.empty?

          found = DETECTED.find { |constant, _| Object.const_defined?(constant, false) }
          found ? found[1] : "unknown"
        end

        def yjit?
          defined?(RubyVM::YJIT) && RubyVM::YJIT.respond_to?(:enabled?) ? RubyVM::YJIT.enabled? : false
        end
      end
    end
  end
end
