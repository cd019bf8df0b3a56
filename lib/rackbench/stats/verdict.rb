# frozen_string_literal: true

require_relative "littles_law"
require_relative "verdict_words"
require_relative "keep_alive_split"

module Rackbench
  module Stats
    # What limited a trial, derived from its stored measurements (never from
    # memory, so any old run directory gets one): a kind, a one-line reason
    # with the numbers behind it, and the numbers themselves.
    #
    # The rules run in this order; the first that holds decides (gvl,
    # process_cpu and cpu are CpuRules, unbalanced is Unbalanced, each in its
    # own file; the rest are here):
    #   errors    worker restarts, or more than ERROR_RATE of requests failed:
    #             throughput figures are not the server's capacity.
    #   client    the load generator's own figures say so: it took more than
    #             CLIENT_SHARE of the machine while the machine was saturated,
    #             its open-loop sends went out late (schedule slip), or a load
    #             host failed.
    #   behind    (open loop) the server fell behind the offered rate: the
    #             schedule did not hold and the client is not to blame. The
    #             reason goes on with what the rules below find in the server.
    #   pool      (the probe's split) requests waited for an Active Record
    #             connection (SplitRules, as gc and db below).
    #   (crowded) other processes (a shared machine) left the server less than
    #             MIN_ROOM of one core: CPU tells nothing, so gvl, cpu and under
    #             are not decided ("unknown" instead), and busy says so.
    #   gvl       (MRI only) a process with several threads ran near one core (NEAR_CORE of one core, or of what the
    #             machine left the server, and not over OVER_CORE of it), held
    #             more than one request (in flight less the accept queue), and
    #             the setup has fewer processes than cores: more processes
    #             would use the idle cores.
    #   process_cpu  single-threaded processes (Unicorn's, Pitchfork's,
    #             Passenger's workers; Thin's one event loop; Falcon's, whose
    #             fibers share one thread: no GVL to contend for) each ran near one
    #             core, the most such a process can use, with at least one
    #             request each, while IDLE_CORES or more of the CPU left to the
    #             server went unused: more processes would use them.
    #   (c = 1)   one closed-loop connection is sequential (Measures#sequential?):
    #             one request at a time, req/s = 1 / latency. No process_cpu,
    #             unbalanced or busy (no split or more workers can raise it):
    #             under, saying so.
    #   cpu       the server used CPU_ROOM of the CPU it could have had (cores
    #             minus the load generator's and everything else's use, measured
    #             from /proc/stat), and the load could fill the cores (at least
    #             as many requests in flight as cores the client left).
    #   gc, db    (the probe's split) a CPU verdict whose GC took a fifth of the
    #             CPU is GC-heavy; a busy one whose SQL took half the wall time
    #             is database-bound (SplitRules).
    #   unbalanced  requests queued while slots sat idle, and the workers'
    #             shares of the requests (the trial's balance) were uneven
    #             enough to explain it: the busiest served SPREAD or more times
    #             an even share, and an even split (req/s x spread) reaches
    #             EXPLAINS of the bound the idle slots imply (req/s x
    #             min(in flight, slots) / busy slots). Puma's keep-alive
    #             connections stay on the worker that accepted them, and so
    #             do Agoo's, Itsi's and Iodine's. These three accept every
    #             connection and queue the requests their threads cannot take
    #             themselves (the trial's "queues_inside"): with no count of
    #             busy threads, at most slots / spread are busy (Measures#slot_cap)
    #             and the rest of those in flight wait inside. With nothing
    #             queued, an uneven split also holds a server when its busiest
    #             process ran near one core while IDLE_CORES of the CPU left
    #             to it stayed idle.
    #   upstream  on /network-io*, the upstream's delay is UPSTREAM_SHARE of the
    #             mean latency and requests do not queue.
    #   busy      requests queue (on average QUEUE_SHARE of the concurrency, and
    #             at least one) or BUSY_SHARE of the worker/thread slots are busy,
    #             while CPU is not the limit: more workers or threads would help.
    #             A server on fibers (Falcon; the trial's "fibers") has no slots:
    #             each process serves every request it accepts at once, so
    #             requests in flight over processes says nothing of it being
    #             full. Only a queue it has not accepted (the accept queue) does.
    #   under     none of the above: the load keeps fewer requests in flight than
    #             the server can serve; throughput follows the concurrency (for
    #             fibers on /pause/S: concurrency / S, whatever the processes).
    #   unknown   the trial has no process samples (an external server), or no
    #             queue reading to tell "busy" from "under".
    #
    # Requests in flight: the concurrency in a closed loop; in an open loop
    # the achieved rate times the mean service time (Little's law; Measures#in_flight).
    # A cell's verdict is the most common kind of its trials, a tie going to
    # the kind listed first above, told by the median trial (by req/s) of
    # that kind, so the order its trials are read in never changes it
    # (VerdictCell).
    class Verdict
      include Words

      THRESHOLDS = {
        error_rate: 0.01,   # 1% failed requests: beyond noise (a closed-loop trial's end loses none)
        client_share: 0.25, # the runner's warning (Runner::Measurement::CLIENT_SHARE_LIMIT): on 2 cores half a core
        saturated: 0.9,     # machine busy share that leaves a process waiting for a core
        near_core: 0.7,     # one core minus the noise of 10 ms CPU ticks and a shared machine
        over_core: 1.2,     # a process above this share of one core runs Ruby on several cores: no GVL holds it
        cpu_room: 0.8,      # of the CPU left to the server: what a CPU-bound server reaches with GC and I/O gaps
        queue_share: 0.2,   # mean requests waiting over the concurrency: a queue that is there most of the time
        busy_share: 0.9,    # busy slots over all slots
        upstream_share: 0.6, # upstream delay over mean latency: most of a request's time is the upstream's
        min_room: 50.0,     # % of one core: below half a core left by others, CPU figures tell nothing
        idle_cores: 0.5,    # cores left unused: half a core is beyond 10 ms ticks and the rest's noise
        spread: 1.25,       # busiest worker's requests over an even share: 62.5% of them on 2 workers
        explains: 0.8       # an even split reaches this share of the idle slots' bound: the split is most of the gap
      }.freeze

      LABELS = { "errors" => "memory/errors", "client" => "load generator", "behind" => "server fell behind",
                 "gvl" => "GVL-bound", "process_cpu" => "CPU-bound per process", "cpu" => "CPU-bound",
                 "unbalanced" => "unbalanced", "upstream" => "upstream", "busy" => "workers busy",
                 "under" => "below capacity", "unknown" => "unknown",
                 # from the in-process probe's split (SplitRules)
                 "pool" => "pool exhausted", "gc" => "GC-heavy", "db" => "database-bound" }.freeze
      # The rules' order: a cell's tie between kinds goes to the one listed first.
      KINDS = %w[errors client behind pool gc gvl process_cpu cpu db unbalanced upstream busy under unknown].freeze

      Result = Struct.new(:kind, :label, :reason, :evidence, :little, keyword_init: true) do
        def to_h
          { "kind" => kind, "label" => label, "reason" => reason, "evidence" => evidence, "littles_law" => little&.to_h }
        end

        def text
          "#{label}: #{reason}"
        end
      end

      # trial: a stored trial record; upstream_delay_s: the upstream stub's
      # delay (default: the record's own "upstream_delay_s", stored for /network-io*).
      def self.for(trial, upstream_delay_s: trial["upstream_delay_s"])
        new(trial, upstream_delay_s).result
      end

      # The verdict of a cell (VerdictCell): the same whatever order its trials come in.
      def self.for_cell(trials)
        VerdictCell.for(trials)
      end

      def initialize(trial, upstream_delay_s)
        @t = trial
        @upstream = upstream_delay_s
        @m = Measures.new(trial)
        @split = SplitRules.new(trial, @m)
        @cpu = CpuRules.new(@m)
        @unbalanced = Unbalanced.new(trial, @m)
      end

      def result
        kind, reason = decide
        reason += @split.note(kind) if @m.sampled?
        reason += KeepAliveSplit.note(@m, kind)
        evidence = @split.present? ? @m.evidence.merge("split" => @split.evidence) : @m.evidence
        Result.new(kind: kind, label: label(kind), reason: reason, evidence: evidence, little: LittlesLaw.check(@t))
      end

      private

      T = THRESHOLDS

      def decide
        return ["unknown", "no process samples (#{@m.why_unsampled})"] unless @m.sampled?

        errors || client || behind || limit
      end

      # What in the server limited it: a pool that ran out first, then the
      # rules below, as the split refines them (SplitRules: GC-heavy, database-bound).
      def limit
        @split.pool || @split.refine(*server_limit)
      end

      def server_limit
        (@m.crowded? ? nil : (@cpu.gvl unless @split.gvl_ruled_out?) || @cpu.process_cpu || @cpu.cpu) || @unbalanced.call ||
          upstream || busy || (@m.crowded? ? crowded : under)
      end

      def label(kind)
        kind == "busy" && @m.threads > 1 ? "threads busy" : LABELS.fetch(kind)
      end

      def errors
        restarts = @m.restarts
        failed = @m.error_rate > T[:error_rate] ? "#{pct(@m.error_rate * 100)} of requests failed (#{@m.error_classes})#{raised}" : nil
        if restarts.positive?
          return ["errors", ["at least #{restarts} worker restart(s) during the trial (a crash, or a memory limit)", failed].compact.join("; ")]
        end
        return nil unless failed

        ["errors", failed]
      end

      def client
        return ["client", @t["invalid_reason"] || "a load host did not hold its load"] if client_failed?

        share = @m.client_share
        return nil unless share && share > T[:client_share] && @m.machine_share > T[:saturated]

        ["client", "the load generator used #{pct(share * 100)} of the machine while it was #{pct(@m.machine_share * 100)} busy"]
      end

      # The client's own figures failed the trial: its open-loop sends went
      # out late (the record's "behind" says "client"; older records: the
      # reason's words), or a load host failed (closed loop over --load-host).
      def client_failed?
        return false unless @t["valid"] == false
        return @t["behind"] == "client" if @t.key?("behind")

        !@m.open? || @t["invalid_reason"].to_s.start_with?("the load generator")
      end

      def behind
        return nil unless @m.open? && @t["valid"] == false

        kind, reason = limit
        target = @t["target_rate"] || @t["rate"]
        ["behind", "the server answered #{fmt(@m.rps)} of #{fmt(target)} req/s offered, with #{fmt(@m.in_flight)} " \
                   "request(s) in flight on average (Little's law: #{fmt(@m.rps)} req/s x #{ms(@m.service_ms)}); " \
                   "in the server: #{label(kind)}: #{reason}"]
      end

      # The app's own line for its server errors (the trial's "app_error",
      # from the server's log: Runner::AppError).
      def raised
        @t["app_error"] ? "; the app raised: #{@t['app_error']}" : ""
      end

      def crowded_note
        @m.crowded? ? "; CPU not judged: other processes used #{pct(@m.others_pct)} of the machine" : ""
      end

      def crowded
        ["unknown", "other processes used #{pct(@m.others_pct)} of the machine's #{@m.cores * 100}%, leaving the server " \
                    "#{pct(@m.room)}: rerun on a quiet machine (rackbench doctor) (#{@m.queue_text})"]
      end

      def upstream
        return nil unless @upstream && @t["endpoint"].to_s.start_with?("/network-io") && @m.latency_ms&.positive?

        share = @upstream * 1000 / @m.latency_ms
        return nil unless share >= T[:upstream_share] && !@m.queueing?

        ["upstream", "the upstream's #{ms(@upstream * 1000)} is #{pct(share * 100)} of the mean latency " \
                     "(#{ms(@m.latency_ms)}); #{@m.queue_text}#{crowded_note}"]
      end

      def busy
        return nil unless @m.queueing? || (!@m.fibers? && !@m.sequential? && @m.busy_share.to_f >= T[:busy_share])

        why = @m.crowded? ? crowded_note : " while CPU is not the limit (#{@m.cpu_text})"
        ["busy", "#{@m.queue_text}; #{serving}#{why}"]
      end

      def serving
        return "#{fmt(@m.busy_slots)} request(s) served on #{@m.processes} processes' fibers" if @m.fibers?

        "#{fmt(@m.busy_slots)} of #{@m.slots} #{@m.threads > 1 ? 'threads' : 'workers'} busy"
      end

      def under
        return ["unknown", "no queue reading (#{@m.queue_unknown})"] unless @m.queue_known?

        return ["under", "#{@m.sequential_text} (#{@m.cpu_text})"] if @m.sequential?

        slots = @m.fibers? ? "on #{@m.processes} processes' fibers (no slots)" : "for #{@m.slots} slots"
        ["under", "#{fmt(@m.in_flight)} request(s) in flight #{slots}, #{@m.queue_text}; nothing saturated " \
                  "(#{@m.cpu_text}): more load would raise throughput"]
      end

    end
  end
end

require_relative "verdict_measures"
require_relative "verdict_cell"
require_relative "verdict_split"
require_relative "verdict_cpu"
require_relative "verdict_unbalanced"
