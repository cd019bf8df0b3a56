# frozen_string_literal: true

module Rackbench
  module Sampling
    # The "queues" section of a trial record, from a Queues sampler's rows:
    # per source the mean, p95 (nearest rank) and max of its readings.
    # accept / front_accept: the kernel's accept queue (depth, and the
    # listen backlog as "limit"); server: the server's own queue, summed over
    # its workers at each reading (backlog: requests waiting for a thread;
    # busy_threads: threads serving one, plus that backlog). waiting_mean =
    # accept mean + backlog mean: the requests the server holds but is not
    # serving yet. A source that could not be read is {"unknown" => reason}.
    module QueueSummary
      module_function

      def build(queues, listeners:, server_kind: nil)
        accept_rows = queues.rows["accept"]
        failed = queues.failures
        out = listeners.keys.to_h do |name|
          key = name == "server" ? "accept" : "#{name}_accept"
          values = accept_rows.filter_map { |r| r[name] }
          next [key, { "unknown" => failed[name] || "no reading" }] if values.empty?

          [key, stats(values).merge("limit" => accept_rows.filter_map { |r| r["#{name}_limit"] }.max)]
        end
        out["server"] = server(queues.rows["server"], failed["server_stats"], server_kind)
        out["waiting_mean"] = waiting(out)
        out
      end

      def server(rows, reason, kind)
        rows = fresh(rows)
        if rows.empty?
          return { "unknown" => reason || (kind ? "no #{kind} reading after the trial began" : "the server reports no queue") }
        end

        workers = rows.last["workers"]
        { "kind" => kind, "backlog" => stats(rows.map { |r| sum(r, "backlog") }),
          "busy_threads" => stats(rows.map { |r| sum(r, "busy") }),
          "threads" => workers.sum { |w| w["threads"].to_i }, "workers" => workers.size }
      end

      # Cluster readings from the first one in which every worker has checked
      # in since the trial's first reading (single mode: every reading).
      def fresh(rows)
        return rows if rows.empty?

        first = rows.first["workers"].to_h { |w| [w["pid"], w["checkin"]] }
        start = rows.index { |r| r["workers"].all? { |w| w["checkin"].nil? || w["checkin"] != first[w["pid"]] } }
        start ? rows[start..] : []
      end

      def waiting(out)
        accept = out.dig("accept", "mean") or return nil
        (accept + out.dig("server", "backlog", "mean").to_f).round(2)
      end

      def sum(row, field)
        row["workers"].sum { |w| w[field].to_i }
      end

      def stats(values)
        sorted = values.sort
        p95 = sorted[[(0.95 * sorted.size).ceil - 1, 0].max]
        { "mean" => (values.sum.to_f / values.size).round(2), "p95" => p95, "max" => sorted.last,
          "samples" => values.size }
      end
    end
  end
end
