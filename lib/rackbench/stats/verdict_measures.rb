# frozen_string_literal: true

require_relative "verdict_words"

module Rackbench
  module Stats
    class Verdict
      # The figures a verdict is decided on, read from one trial record
      # (CPU in % of one core, as the sampler stores it). Missing fields
      # (an old run, an external server, a source that could not be read)
      # come back nil or as their neutral value, never raise.
      class Measures
        include Words

        def initialize(trial)
          @t = trial
          @cpu = trial["cpu"].is_a?(Hash) ? trial["cpu"] : {}
          @queues = trial["queues"].is_a?(Hash) ? trial["queues"] : {}
          @balance = trial["balance"].is_a?(Hash) ? trial["balance"] : {}
          @machine = trial["machine"].is_a?(Hash) ? trial["machine"] : {}
        end

        # Sampling::Noise::QUIET_PCT, for old records with no stored limit.
        QUIET_PCT = 10.0

        def sampled?
          !@cpu["server_pct"].nil?
        end

        def why_unsampled
          @t["cpu"].nil? && @t["rps"] ? "an external server (--url) or a run without the sampler" : "the sampler read nothing"
        end

        def cores = (@cpu["cores"] || 1).to_i
        def server_pct = @cpu["server_pct"].to_f
        def client_pct = @cpu["client_pct"].to_f
        def threads = [@t["threads"].to_i, 1].max
        def workers = [@t["workers"].to_i, 1].max
        def slots = workers * threads
        # A server on fibers (Falcon): many requests per process at once, no slots to fill.
        def fibers? = @t["fibers"] == true

        # JRuby runs Ruby threads on every core: no GVL. The trial says which
        # runtime its setup ran on; a run from before it did, its label.
        def jruby?
          @t.key?("setup_runtime") ? @t["setup_runtime"] == "jruby" : @t["setup"].to_s.include?(" on jruby")
        end

        # A threaded server that accepts every connection and queues the
        # requests its slots cannot take itself (Itsi, Iodine, Agoo; the
        # trial's "queues_inside"), with no stats rackbench reads: those
        # requests never show in the kernel's accept queue.
        def queues_inside? = @t["queues_inside"] == true && !fibers?
        def restarts = @t.dig("processes", "worker_restarts").to_i
        def error_rate = @t["error_rate"].to_f
        def latency_ms = @t.dig("latency_ms", "mean")

        def error_classes
          errors = @t["errors"].is_a?(Hash) ? @t["errors"].select { |_, v| v.to_i.positive? } : {}
          errors.empty? ? "no class recorded" : errors.map { |k, v| "#{k} #{v}" }.join(", ")
        end

        # The machine's CPU use from /proc/stat, or what we sampled when it is missing.
        def machine_pct
          @machine["cpu_pct"] || (server_pct + client_pct)
        end

        def machine_share = machine_pct / (100.0 * cores)
        def client_share = @cpu["client_machine_share"]

        # Everything on the machine but the server and the load generator:
        # rackbench itself, the hypervisor's steal and other processes.
        def rest_pct
          [machine_pct - server_pct - client_pct, 0.0].max
        end

        # Other processes (other users of a shared machine): the sampler's
        # figure over its own window (Sampling::MachineWindow), else the
        # rest less rackbench's own CPU and the hypervisor's steal.
        def others_pct
          @machine["foreign_pct"] || [rest_pct - @machine["rackbench_pct"].to_f - @machine["steal_pct"].to_f, 0.0].max
        end

        # Above the limit the trial stored with its figure (QUIET_PCT plus the
        # measurement's error bound, which grows with the cores), or QUIET_PCT.
        def others_flagged?
          return false unless @machine["cpu_pct"]

          others_pct > (@machine["foreign_limit_pct"] || QUIET_PCT)
        end

        # The CPU the server could have had: the cores, less all the rest's use;
        # under --cpus, no more than its own CPU set (the trial's "cpus"), which
        # the load generator on its own CPUs does not share.
        def room
          all = [100.0 * cores - client_pct - rest_pct, 1.0].max
          pinned = server_cpus
          pinned ? [all, 100.0 * pinned].min : all
        end

        # How many CPUs --cpus gave the server ("0-2,5": 4), or nil when shared.
        def server_cpus
          set = @t["cpus"]
          return nil unless set.is_a?(Hash) && set["shared"] == false

          n = set["server"].to_s.split(",").sum do |item|
            lo, hi = item.split("-", 2).map { |x| Integer(x, 10) }
            hi ? hi - lo + 1 : 1
          end
          n.positive? ? n : nil
        rescue ArgumentError, TypeError
          nil
        end

        # Other processes (a shared machine) left the server less than
        # MIN_ROOM of one core: CPU figures tell nothing (Verdict's "(crowded)").
        def crowded? = room < THRESHOLDS[:min_room]

        # Cores the server left unused of the CPU it could have had.
        def idle_cores
          (room - server_pct) / 100.0
        end

        # Cores the load generator left (others' use aside): the load must keep this many requests in flight to fill them.
        def client_free_cores
          cores - client_pct / 100.0
        end

        def processes
          [Array(@balance["workers"]).size, workers].max
        end

        def busiest
          @balance["busiest_cpu_pct"]
        end

        # Each worker's CPU (% of one core), where the sampler saw it.
        def worker_cpus
          Array(@balance["workers"]).filter_map { |w| w["cpu_pct"] if w.is_a?(Hash) }
        end

        # The least busy worker's CPU, when every worker's is known.
        def least_busy
          cpus = worker_cpus
          cpus.size == processes ? cpus.min : nil
        end

        # Each worker's share of the requests, busiest first ([] when not counted).
        def request_shares
          Array(@balance["workers"]).filter_map { |w| w["requests_share"] if w.is_a?(Hash) }.sort.reverse
        end

        # The busiest worker's share of the requests over an even split (1.0 = even).
        def spread
          @balance["spread"]
        end

        def open? = @t["loop"] == "open"
        def rps = @t["rps"].to_f

        # One closed-loop connection: it sends its next request only after
        # the answer, so one request exists at a time and req/s is
        # 1 / latency; no split over workers and no more workers or threads
        # can raise it.
        def sequential? = !open? && @t["concurrency"].to_i == 1

        # The server's CPU per request, in ms: its processes' CPU over the
        # requests they answered (nil when either is unknown). This is what a
        # request costs the process, GC, the server's own work and the app
        # together; the probe's cpu_ms is the app's part only.
        def cpu_ms_per_request
          server_pct.positive? && rps.positive? ? 10.0 * server_pct / rps : nil
        end

        # Requests in flight on average. Closed loop: the concurrency (each
        # connection always has one out). Open loop, by Little's law: the
        # achieved rate times the mean time a request spent out, from its
        # actual send (service_ms; latency_ms counts from the planned send, so
        # it adds the time a request waited for a free connection in the
        # client, which is not in the server). The stored "in_flight" is only
        # what was unanswered when the load generator stopped.
        def in_flight
          open? ? little_l : @t["concurrency"].to_f
        end

        def service_ms
          @t.dig("service_ms", "mean") || latency_ms
        end

        def little_l
          service_ms && @t["rps"] ? rps * service_ms / 1000 : 0.0
        end

        # Requests held by the processes: in flight less those the kernel
        # still held in the accept queue (sampled at 5 Hz), per process.
        # Not from Puma's busy threads, which each worker reports at its
        # check-in (up to a second old, and taken when the worker's stats
        # thread got the GVL): one or two readings per trial.
        def in_flight_per_process
          accepted = in_flight - @queues.dig("accept", "mean").to_f
          [accepted, 0.0].max / processes
        end

        # Requests waiting: in the kernel's accept queue (and Puma's backlog),
        # plus, for a server that queues inside, those it holds beyond what
        # its slots serve (a closed-loop residual: in flight less the accept
        # queue less slot_cap).
        def waiting
          base = @queues["waiting_mean"]
          return base if base.nil? || !queues_inside?

          base + inside(base)
        end

        def inside(base = @queues["waiting_mean"].to_f)
          queues_inside? ? [in_flight - base - slot_cap, 0.0].max : 0.0
        end

        # The slots that can be busy at once. With no count of busy threads
        # from the server, the workers' shares of the requests bound it: the
        # busiest process has at most its threads busy, and the others serve
        # in proportion to their share (the same code taking the same time),
        # so at most slots / spread are busy (Agoo's first process took 96%
        # of the connections: 5 of 10 threads at work, the rest waiting).
        def slot_cap
          s = spread.to_f
          s > 1 ? slots / s : slots.to_f
        end

        def queue_known?
          !waiting.nil?
        end

        def queue_unknown
          @queues.empty? ? "not sampled" : [@queues.dig("accept", "unknown"), @queues.dig("server", "unknown")].compact.join("; ")
        end

        def queueing?
          queue_known? && waiting >= [1.0, THRESHOLDS[:queue_share] * in_flight].max
        end

        # Slots serving a request: the server's busy threads less its backlog, or (closed loop) those in flight less those waiting.
        def busy_slots
          busy = @queues.dig("server", "busy_threads", "mean")
          backlog = @queues.dig("server", "backlog", "mean").to_f
          served = busy ? busy - backlog : in_flight - waiting.to_f
          served.clamp(0.0, fibers? ? in_flight : slots.to_f)
        end

        def busy_share
          busy_slots / slots
        end

        def queue_text
          return "queue not measured" unless queue_known?

          parts = ["#{fmt(waiting)} waiting on average"]
          parts << "#{fmt(inside)} of them inside the server (it accepts every connection)" if inside.positive?
          accept = @queues["accept"]
          parts << "accept queue mean #{fmt(accept['mean'])}, max #{accept['max']}" if accept&.key?("mean")
          backlog = @queues.dig("server", "backlog")
          parts << "#{@queues.dig('server', 'kind')} backlog mean #{fmt(backlog['mean'])}" if backlog
          parts.join(", ")
        end

        def sequential_text
          "1 request(s) in flight on one connection, one at a time (c = 1): req/s is 1 / latency (#{ms(latency_ms)} a request), " \
            "so no split over workers and no more workers or threads can raise it; more connections would"
        end

        # Other processes are named only above their limit: below it they
        # are within the measurement's error (and rackbench's own CPU is
        # never theirs).
        def cpu_text
          text = "server #{server_pct.round}% of #{cores * 100}%, load generator #{client_pct.round}%"
          text += ", other processes #{others_pct.round}%" if others_flagged?
          text
        end

        # The numbers a verdict cites, for the JSON and the report.
        def evidence
          { "concurrency" => @t["concurrency"], "in_flight" => in_flight.round(2), "slots" => fibers? ? nil : slots,
            "waiting_mean" => waiting, "busy_slots" => queue_known? ? busy_slots.round(2) : nil,
            "server_cpu_pct" => @cpu["server_pct"], "client_cpu_pct" => @cpu["client_pct"],
            "other_cpu_pct" => @machine["cpu_pct"] && others_pct.round(1), "cores" => cores,
            "busiest_process_cpu_pct" => busiest, "processes" => processes, "requests_spread" => spread,
            "error_rate" => @t["error_rate"], "worker_restarts" => restarts }
        end

      end
    end
  end
end
