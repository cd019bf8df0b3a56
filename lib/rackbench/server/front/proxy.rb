# frozen_string_literal: true

require_relative "../../process_control/lifecycle"
require_relative "../../process_control/error_line"
require_relative "../../deadline"
require_relative "../../error"

module Rackbench
  module Server
    module Front
      # What every proxy in front shares (Nginx, Thruster): its URL, its
      # lifetime (ProcessControl::Lifecycle, as a server's: spawned with its
      # logs capped, ready when /health answers through it and its own
      # process holds the port, stopped by its graceful signal, then KILL
      # after 5 s), and its words when it fails
      # (a port another process holds, else its log's first error line).
      # A proxy answers name, stop_signal, log_paths (the first is where the
      # failure points), where (the address in "could not listen on ...")
      # and, optionally, listening_pids.
      module Proxy
        attr_reader :port

        # Its Child (ProcessControl::Lifecycle#child); nil before start.
        def child
          @life&.child
        end

        def url(path = "/")
          "#{@tls ? 'https' : 'http'}://#{@host}:#{@port}#{path}"
        end

        def alive?
          @life&.alive? || false
        end

        def stop
          @life&.stop(stop_signal, timeout: 5)
        end

        private

        # Spawns argv (output to log), caps log_paths, waits until ready;
        # stops what it started if that fails.
        def launch(argv, log:, timeout:, env: {})
          @life = ProcessControl::Lifecycle.new(host: @host, port: @port, tls: @tls)
          @life.spawn(argv, env: env, log_path: log, cpus: @cpus, log_paths: log_paths)
          wait_ready(Deadline.in(timeout))
          self
        rescue StandardError
          stop
          raise
        end

        def listening_pids
          processes.map(&:pid)
        end

        def wait_ready(deadline)
          case @life.wait_ready(deadline, path: "/health", every: 0.05, pids: -> { listening_pids })
          when :exited then raise failed(exit_reason)
          when :late then raise failed("did not answer on port #{@port}")
          end
        end

        def exit_reason
          log = log_paths.map { |path| ProcessControl::ErrorLine.tail(path, 20) }.join("\n")
          if log.match?(/address already in use/i)
            return "could not listen on #{where}: the port is already in use by another process; " \
                   "stop that process or choose another --port"
          end

          line = ProcessControl::ErrorLine.first(log)
          "exited at start (#{child.exit_summary})#{line ? ": #{line}" : ''}"
        end

        def failed(what)
          log = log_paths.first
          SetupFailed.new("#{name} #{what}; see #{log}", log_tail: ProcessControl::ErrorLine.tail(log, 5))
        end
      end
    end
  end
end
