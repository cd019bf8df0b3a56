# frozen_string_literal: true

require_relative "../clock"
require_relative "../periodic"
require_relative "../system/listen_queue"
require_relative "../system/machine_cpu"

module Rackbench
  module Sampling
    # Where a trial's requests wait, sampled beside the process sampler:
    # the kernel's accept queue of each listening port (ListenQueue; the
    # server's, and nginx's when it is in front) and the server's own queue
    # where it reports one (Server::PumaStats, made by the server's adapter).
    # Each source has its own thread at `interval` (5 Hz, like the process
    # sampler) on a fixed schedule of the monotonic clock (a Periodic each),
    # so a slow source (Puma's control app waits for the GVL of a busy
    # single-mode Puma) delays only its own readings. The machine's CPU
    # (MachineCpu) is read at start and stop.
    #
    # A source that fails is not an error of the trial: its first failure is
    # kept as the reason, and the summary says "unknown" with it.
    class Queues
      DEFAULT_INTERVAL = 0.2

      # listeners: {name => port}, e.g. {"server" => 3000, "front" => 8080}
      # server_stats: nil or an object with #read -> [Server::PumaStats::Worker]
      # unknown: {name => reason} for sources known to be missing up front
      def initialize(listeners:, server_stats: nil, unknown: {}, interval: DEFAULT_INTERVAL, clock: Clock,
                     machine: System::MachineCpu.new)
        @listeners = listeners
        @server_stats = server_stats
        @interval = interval
        @clock = clock
        @machine = machine
        @rows = { "accept" => [], "server" => [] }
        @failed = unknown.dup
        @mutex = Mutex.new
      end

      def start
        @t0 = @clock.now
        @machine.start
        @loops = [Periodic.new(@interval, clock: @clock) { accept_row }]
        @loops << Periodic.new(@interval, clock: @clock) { server_row } if @server_stats
        @loops.each { |l| l.start(at: @t0) }
        self
      end

      def stop
        @loops&.each(&:stop)
        @machine.stop
        self
      end

      # Rows for queues.jsonl: {"t", "source" => "accept", name => depth, ...}
      # and {"t", "source" => "server", "workers" => [{pid, backlog, busy, requests}]}.
      def series
        @rows.values.flatten.sort_by { |r| r["t"] }
      end

      attr_reader :rows

      def failures
        @failed.dup
      end

      def machine_cpu_pct
        @machine.busy_pct
      end

      def machine_steal_pct
        @machine.steal_pct
      end

      private

      def accept_row
        row = { "t" => t, "source" => "accept" }
        @listeners.each do |name, port|
          next if @failed.key?(name)

          depth = System::ListenQueue.read(port)
          next fail_with(name, "no socket listens on port #{port}") unless depth

          row[name] = depth.depth
          row["#{name}_limit"] = depth.limit
        rescue SystemCallError, IOError => e
          fail_with(name, "sock_diag netlink unavailable (#{e.message})")
        end
        @rows["accept"] << row if row.size > 2
      end

      def server_row
        return if @failed.key?("server_stats")

        workers = @server_stats.read
        @rows["server"] << { "t" => t, "source" => "server", "workers" => workers.map { |w| w.to_h.transform_keys(&:to_s) } }
      rescue StandardError => e
        fail_with("server_stats", "#{e.class.name.split('::').last}: #{e.message}") if @rows["server"].empty?
      end

      def fail_with(name, reason)
        @mutex.synchronize { @failed[name] ||= reason }
      end

      def t
        (@clock.now - @t0).round(3)
      end
    end
  end
end
