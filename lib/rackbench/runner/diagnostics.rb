# frozen_string_literal: true

require_relative "../clock"
require_relative "../sampling/queues"
require_relative "../sampling/queue_summary"
require_relative "../sampling/probe_files"
require_relative "../sampling/balance"
require_relative "../sampling/time_split"

module Rackbench
  class Runner
    # What a trial measures beside the process sampler, for its verdict
    # (Stats::Verdict): where requests waited (Sampling::Queues), who did
    # the work (Sampling::Balance, with the arena's probe files) and the
    # whole machine's CPU. Every part is optional: what cannot be read is
    # recorded as {"unknown" => reason} and the trial goes on.
    class Diagnostics
      PROBE_DIR = "probe"

      # The probe's directory for a server directory (Session sets it for built-in apps).
      def self.probe_dir(server_dir)
        File.join(server_dir, PROBE_DIR)
      end

      # nil for an external server (--url): there is no process to ask. A
      # diagnostic that breaks never stops a trial: its verdict is "unknown".
      def self.for(instance:, front:)
        instance && new(instance, front)
      rescue StandardError
        nil
      end

      def initialize(instance, front)
        @instance = instance
        listeners = { "server" => instance.port }
        listeners["front"] = front.port if front
        @listeners = listeners
        stats, why = server_stats
        @queues = Sampling::Queues.new(listeners: listeners, server_stats: stats,
                                       unknown: why ? { "server_stats" => why } : {})
        dir = self.class.probe_dir(instance.dir)
        @probe = File.directory?(dir) ? Sampling::ProbeFiles.new(dir) : nil
      end

      def start
        @probe_start = @probe&.read
        @queues.start
        self
      end

      def stop
        @queues.stop
        @stopped_at = Clock.now
        @probe_end = @probe&.read_fresh(@stopped_at)
        self
      end

      # Fields for the trial record (its "split" when the probe ran: Sampling::TimeSplit);
      # summary: the process sampler's TrialSummary (or nil).
      def fields(summary)
        build_fields(summary)
      rescue StandardError => e
        { "queues" => { "unknown" => "#{e.class}: #{e.message}" } }
      end

      def series
        @queues.series
      end

      private

      def build_fields(summary)
        out = { "queues" => Sampling::QueueSummary.build(@queues, listeners: @listeners, server_kind: @kind),
                "machine" => { "cpu_pct" => @queues.machine_cpu_pct, "steal_pct" => @queues.machine_steal_pct } }
        deltas = @probe_end && Sampling::ProbeFiles.deltas(@probe_start || {}, @probe_end, @stopped_at)
        out["balance"] = summary ? Sampling::Balance.build(summary, probe: deltas, server_rows: @queues.rows["server"]) : { "unknown" => "no process samples" }
        out["balance"]["probe"] = probe_note unless deltas && !deltas.empty?
        out["split"] = Sampling::TimeSplit.build(deltas) if @probe
        out
      end

      def probe_note
        @probe ? "the probe wrote no file (no request reached it)" : "off (a user's app without --probe, or an external server)"
      end

      # [a reader of the server's own stats or nil, the reason when nil]:
      # the adapter's own (Server::Base#stats_reader; Puma's control app).
      def server_stats
        adapter = @instance.adapter
        reader, why = adapter.stats_reader(pid: @instance.child.pid, port: @instance.port)
        @kind = adapter.key if adapter.stats?
        [reader, why]
      end
    end
  end
end
