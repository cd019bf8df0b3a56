# frozen_string_literal: true

module Rackbench
  module Sampling
    # Who did the work in a trial: per worker process its CPU (from the
    # process sampler: CPU seconds between its first and last reading over
    # the time between them, 100 = one core), requests served and GC runs
    # and time (from the arena probe, ProbeFiles; else requests from the
    # server's own stats, Server::PumaStats' requests_count, up to 1 s old at
    # each end in cluster mode). "requests_share" is each worker's part of the
    # requests; "spread" the busiest worker's share over an even split
    # (1.0 = even; 1.5 = 3/1 over two workers).
    module Balance
      module_function

      # summary: TrialSummary; probe: ProbeFiles.deltas or nil; server_rows: Queues rows["server"].
      def build(summary, probe: nil, server_rows: [])
        cpu = worker_cpu(summary)
        requests, source = requests(probe, server_rows)
        pids = (cpu.keys + requests.keys).uniq
        return { "unknown" => "no worker process was sampled" } if pids.empty?

        total = requests.values.sum
        workers = pids.map do |pid|
          row = { "pid" => pid, "cpu_pct" => cpu[pid], "requests" => requests[pid] }
          row["requests_share"] = (requests[pid].to_f / total).round(3) if requests[pid] && total.positive?
          row.merge!(probe[pid].slice("gc_count", "gc_time_ms")) if probe&.key?(pid)
          row
        end
        { "workers" => workers, "requests_source" => source, "spread" => spread(workers, total),
          "busiest_cpu_pct" => cpu.values.compact.max }
      end

      # {pid => CPU % of one core} for each worker process.
      def worker_cpu(summary)
        seen = Hash.new { |h, k| h[k] = [] }
        summary.samples.each do |s|
          s.readings.each { |r| seen[r.key] << [s.t, r.cpu_seconds] if r.role == "worker" }
        end
        seen.each_with_object({}) do |((pid, _), points), out|
          (t0, c0), (t1, c1) = points.first, points.last
          out[pid] = t1 > t0 ? (100.0 * (c1 - c0) / (t1 - t0)).round(1) : nil
        end
      end

      def requests(probe, server_rows)
        if probe && !probe.empty?
          return [probe.transform_values { |d| d["requests"] }.reject { |_, v| v.nil? || v.negative? }, "probe"]
        end
        return [{}, nil] if server_rows.size < 2

        first = server_rows.first["workers"].to_h { |w| [w["pid"], w["requests"]] }
        last = server_rows.last["workers"].to_h { |w| [w["pid"], w["requests"]] }
        counts = last.filter_map { |pid, n| [pid, n - first[pid]] if n && first[pid] }.to_h
        [counts, counts.empty? ? nil : "server stats"]
      end

      def spread(workers, total)
        shares = workers.filter_map { |w| w["requests_share"] }
        return nil if shares.size < 2 || total.zero?

        (shares.max * shares.size).round(2)
      end
    end
  end
end
