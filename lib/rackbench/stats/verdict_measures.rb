# frozen_string_literal: true

module Rackbench
  module Stats
    class Verdict
      # The figures a verdict is decided on, read from one trial record
      # (CPU in % of one core, as the sampler stores it). Missing fields
      # (an old run, an external server, a source that could not be read)
      # come back nil or as their neutral value, never raise.
      class Measures
        def initialize(trial)
          @t = trial
          @cpu = trial["cpu"].is_a?(Hash) ? trial["cpu"] : {}
          @queues = trial["queues"].is_a?(Hash) ? trial["queues"] : {}
          @balance = trial["balance"].is_a?(Hash) ? trial["balance"] : {}
        end

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
        def restarts = @t.dig("processes", "worker_restarts").to_i
        def error_rate = @t["error_rate"].to_f
        def latency_ms = @t.dig("latency_ms", "mean")

        def error_classes
          errors = @t["errors"].is_a?(Hash) ? @t["errors"].select { |_, v| v.to_i.positive? } : {}
          errors.empty? ? "no class recorded" : errors.map { |k, v| "#{k} #{v}" }.join(", ")
        end

        # The machine's CPU use from /proc/stat, or what we sampled when it is missing.
        def machine_pct
          @t.dig("machine", "cpu_pct") || (server_pct + client_pct)
        end

        def machine_share = machine_pct / (100.0 * cores)
        def client_share = @cpu["client_machine_share"]

        # Processes other than the server and the load generator (other users of a shared machine).
        def others_pct
          [machine_pct - server_pct - client_pct, 0.0].max
        end

        # The CPU the server could have had: the cores, less the client's and the others' use.
        def room
          [100.0 * cores - client_pct - others_pct, 1.0].max
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

        # Requests in flight on average: the concurrency (closed loop), or the open loop's in-flight figure.
        def in_flight
          (@t["loop"] == "open" ? @t["in_flight"] || little_l : @t["concurrency"]).to_f
        end

        def little_l
          latency_ms && @t["rps"] ? @t["rps"].to_f * latency_ms / 1000 : 0.0
        end

        def in_flight_per_process
          busy = @queues.dig("server", "busy_threads", "mean")
          per = in_flight / processes
          busy ? [per, busy.to_f / processes].min : per
        end

        def waiting
          @queues["waiting_mean"]
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
          accept = @queues["accept"]
          parts << "accept queue mean #{fmt(accept['mean'])}, max #{accept['max']}" if accept&.key?("mean")
          backlog = @queues.dig("server", "backlog")
          parts << "#{@queues.dig('server', 'kind')} backlog mean #{fmt(backlog['mean'])}" if backlog
          parts.join(", ")
        end

        def cpu_text
          text = "server #{server_pct.round}% of #{cores * 100}%, load generator #{client_pct.round}%"
          text += ", other processes #{others_pct.round}%" if @t.dig("machine", "cpu_pct")
          text
        end

        # The numbers a verdict cites, for the JSON and the report.
        def evidence
          { "concurrency" => @t["concurrency"], "in_flight" => in_flight.round(2), "slots" => fibers? ? nil : slots,
            "waiting_mean" => waiting, "busy_slots" => queue_known? ? busy_slots.round(2) : nil,
            "server_cpu_pct" => @cpu["server_pct"], "client_cpu_pct" => @cpu["client_pct"],
            "other_cpu_pct" => @t.dig("machine", "cpu_pct") && others_pct.round(1), "cores" => cores,
            "busiest_process_cpu_pct" => busiest, "processes" => processes, "error_rate" => @t["error_rate"],
            "worker_restarts" => restarts }
        end

        private

        def fmt(value)
          value.to_f.round(1).then { |v| v == v.round ? v.round.to_s : v.to_s }
        end
      end
    end
  end
end
