# frozen_string_literal: true

require_relative "../../process_control/child"
require_relative "../../process_control/log_cap"
require_relative "../../process_control/error_line"
require_relative "../../process_control/http_probe"
require_relative "../../system/sockets"
require_relative "../../clock"
require_relative "../../error"

module Rackbench
  module Server
    module Front
      # What every proxy in front shares (Nginx, Thruster): its URL, its
      # lifetime (spawned with its logs capped, ready when /health answers
      # through it and its own process holds the port, stopped by its
      # graceful signal, then KILL after 5 s), and its words when it fails
      # (a port another process holds, else its log's first error line).
      # A proxy answers name, stop_signal, log_paths (the first is where the
      # failure points), where (the address in "could not listen on ...")
      # and, optionally, listening_pids.
      module Proxy
        attr_reader :port, :child

        def url(path = "/")
          "#{@tls ? 'https' : 'http'}://#{@host}:#{@port}#{path}"
        end

        def alive?
          @child&.alive? || false
        end

        def stop
          @child&.stop(stop_signal, timeout: 5)
          @log_cap&.stop
        end

        private

        # Spawns argv (output to log), caps log_paths, waits until ready;
        # stops what it started if that fails.
        def launch(argv, log:, timeout:, env: {})
          @child = ProcessControl::Child.spawn(argv, env: env, log_path: log, cpus: @cpus)
          @log_cap = ProcessControl::LogCap.new(log_paths).start
          wait_ready(Clock.now + timeout)
          self
        rescue StandardError
          stop
          raise
        end

        def listening_pids
          processes.map(&:pid)
        end

        def wait_ready(deadline)
          until ProcessControl::HttpProbe.get(@host, @port, "/health", on_silence: :silent, tls: @tls) &&
                System::Sockets.ports_of(listening_pids).include?(@port)
            raise failed(exit_reason) unless @child.alive?
            raise failed("did not answer on port #{@port}") if Clock.now > deadline

            sleep 0.05
          end
        end

        def exit_reason
          log = log_paths.map { |path| ProcessControl::ErrorLine.tail(path, 20) }.join("\n")
          if log.match?(/address already in use/i)
            return "could not listen on #{where}: the port is already in use by another process; " \
                   "stop that process or choose another --port"
          end

          line = ProcessControl::ErrorLine.first(log)
          "exited at start (#{@child.exit_summary})#{line ? ": #{line}" : ''}"
        end

        def failed(what)
          log = log_paths.first
          SetupFailed.new("#{name} #{what}; see #{log}", log_tail: ProcessControl::ErrorLine.tail(log, 5))
        end
      end
    end
  end
end
