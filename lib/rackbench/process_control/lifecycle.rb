# frozen_string_literal: true

require_relative "child"
require_relative "log_cap"
require_relative "http_probe"
require_relative "../system/sockets"
require_relative "../deadline"
require_relative "../error"

module Rackbench
  module ProcessControl
    # The one lifecycle of a process rackbench boots and sends requests
    # through: a server (ServerInstance) or a proxy in front of one
    # (Server::Front::Proxy). Boot: spawned from an argument array into its
    # own process group (Child), its logs capped (LogCap). Wait: ready once
    # it is alive, an HTTP request to host:port/path was accepted (any
    # answer, or a connection accepted and held without one) and the port's
    # listening socket belongs to one of its pids, tried every few seconds
    # until a Deadline. Stop: its graceful signal, then KILL after a timeout
    # (Child#stop: one Stop), the log cap stopped, an interrupt held until
    # done.
    class Lifecycle
      attr_reader :child

      # tls: the run's certificate when it serves HTTPS.
      def initialize(host:, port:, tls: nil)
        @host = host
        @port = port
        @tls = tls
      end

      # argv and Child.spawn's options; log_paths: the logs to cap.
      def spawn(argv, log_paths:, **opts)
        @child = Child.spawn(argv, **opts)
        @log_cap = LogCap.new(log_paths).start
        @child
      end

      # :ready, :exited (the process is gone) or :late (the Deadline passed).
      # pids: its processes that may hold the port (a block, re-read each
      # try); the block given runs each try that is not ready (the owner's
      # own check: it may raise).
      def wait_ready(deadline, path:, every:, pids:)
        ready = deadline.wait_until(every: every) do
          next :exited unless @child.alive?
          next :ready if HttpProbe.get(@host, @port, path, on_silence: :silent, tls: @tls) && owns_port?(pids.call)

          yield if block_given?
          false
        end
        ready || :late
      end

      def alive?
        @child&.alive? || false
      end

      # Child#stop's options (also:, leader_only:).
      def stop(sig, timeout:, **opts)
        return unless @child

        Thread.handle_interrupt(Interrupted => :never) do
          @child.stop(sig, timeout: timeout, **opts)
          @log_cap&.stop
        end
      end

      private

      def owns_port?(pids)
        System::Sockets.ports_of(pids).include?(@port)
      end
    end
  end
end
