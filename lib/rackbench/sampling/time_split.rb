# frozen_string_literal: true

module Rackbench
  module Sampling
    # Where a trial's request time went, from the in-process probe's
    # per-process differences (ProbeFiles.deltas): per request, the mean
    # wall time, CPU, GC, SQL and view time, and the rest, "waiting, not in
    # Ruby". The trial record's "split".
    #
    # Method:
    # - wall_ms: the probe's wall time around the app's call, summed over
    #   every process, over the requests they served in the trial;
    # - cpu_ms: the request threads' CPU (CLOCK_THREAD_CPUTIME_ID, GC it
    #   triggered included: gc_ms is inside it), cpu_method "thread"; when
    #   requests overlapped on one thread (fibers), the processes' CPU over
    #   their requests instead (cpu_method "process": the server's own work
    #   per request is then inside it too);
    # - waiting_ms = wall_ms - cpu_ms: IO, sleep, waiting for the GVL, and
    #   time runnable but waiting for a CPU (the run queue). Ruby 3.1 cannot
    #   tell the first three apart (GVL wait is measurable from 3.2's C
    #   instrumentation API only; not done here); Linux tells the last:
    #   runq_ms, the request threads' run-queue delay (/proc schedstat, the
    #   probe's runq_s) over the requests, when every process wrote it;
    # - sql_ms, view_ms (Rails: sql.active_record, render_template.action_view
    #   wall time; SQL inside a view counts in both) and the Active Record
    #   pool (mean size, busy and waiting threads, share of samples with a
    #   thread waiting), absent when the app has no such thing;
    # - cpu_share f = cpu / wall and threads_per_process = 1 / f: one
    #   process's GVL runs one thread at a time, so near 1/f threads keep it
    #   busy; more only wait for it (the prediction, beside what a run measures).
    module TimeSplit
      WAITING = "wall time less CPU: IO, sleep, waiting for the GVL (which Ruby 3.1 cannot tell apart) or, runnable, " \
                "for a CPU (runq_ms, where Linux tells it)"

      module_function

      # deltas: {pid => ProbeFiles fields}; nil or {} when the probe wrote nothing.
      def build(deltas)
        rows = (deltas || {}).select { |_, d| d["requests"].to_f.positive? }
        return { "unknown" => "the probe counted no request (no file, or every worker restarted)" } if rows.empty?
        return { "unknown" => "the probe measured no time (an older probe)" } unless rows.values.all? { |d| d["wall_s"] }

        requests = sum(rows, "requests")
        wall = sum(rows, "wall_s")
        method = sum(rows, "shared").positive? ? "process" : "thread"
        cpu = sum(rows, method == "thread" ? "cpu_s" : "process_cpu_s")
        out = times(requests, wall, cpu, sum(rows, "gc_time_ms") / 1000.0).merge("cpu_method" => method)
        out["shared_requests"] = sum(rows, "shared").round if method == "process"
        out.merge!(rails(rows, requests), pool(rows), runq(rows, requests))
        out["stale_processes"] = rows.count { |_, d| d["stale"] } if rows.any? { |_, d| d["stale"] }
        out["workers"] = rows.map { |pid, d| worker(pid, d, method) }
        out
      end

      def times(requests, wall, cpu, gc)
        { "requests" => requests.round, "wall_ms" => ms(wall, requests), "cpu_ms" => ms(cpu, requests),
          "gc_ms" => ms(gc, requests), "waiting_ms" => ms([wall - cpu, 0.0].max, requests), "waiting" => WAITING,
          "cpu_share" => wall.positive? ? (cpu / wall).round(3) : nil,
          "threads_per_process" => cpu.positive? ? (wall / cpu).round(1) : nil }
      end

      # The request threads' run-queue delay per request, when every process measured it.
      def runq(rows, requests)
        return {} unless rows.values.all? { |d| d["runq_s"] }

        { "runq_ms" => ms(sum(rows, "runq_s"), requests) }
      end

      def rails(rows, requests)
        %w[sql view].each_with_object({}) do |name, out|
          next unless rows.values.any? { |d| d.key?("#{name}_ms") }

          out["#{name}_ms"] = (sum(rows, "#{name}_ms") / requests).round(3)
          out["#{name}_per_request"] = (sum(rows, "#{name}_count") / requests).round(2)
        end
      end

      def pool(rows)
        samples = sum(rows, "pool_samples")
        return {} unless samples.positive?

        { "pool" => { "size" => rows.values.filter_map { |d| d["pool_size"] }.max,
                      "busy_mean" => (sum(rows, "pool_busy_sum") / samples).round(2),
                      "waiting_mean" => (sum(rows, "pool_waiting_sum") / samples).round(2),
                      "waiting_share" => (sum(rows, "pool_waiting_samples") / samples).round(3),
                      "samples" => samples.round } }
      end

      def worker(pid, delta, method)
        n = delta["requests"].to_f
        cpu = delta[method == "thread" ? "cpu_s" : "process_cpu_s"].to_f
        { "pid" => pid, "requests" => n.round, "wall_ms" => ms(delta["wall_s"].to_f, n), "cpu_ms" => ms(cpu, n) }
      end

      def sum(rows, key)
        rows.values.sum { |d| d[key].to_f }
      end

      def ms(seconds, requests)
        (1000.0 * seconds / requests).round(3)
      end
    end
  end
end
