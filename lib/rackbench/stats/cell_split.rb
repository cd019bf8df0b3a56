# frozen_string_literal: true

module Rackbench
  module Stats
    # A cell's time split: its trials' splits (Sampling::TimeSplit, the
    # in-process probe's) pooled, each per-request figure weighted by the
    # requests of the trial it comes from, so the cell reads as one trial of
    # all its requests; 1/f (threads_per_process) from the pooled wall and
    # CPU. nil when no trial of the cell had the probe's figures.
    module CellSplit
      PER_REQUEST = %w[wall_ms cpu_ms gc_ms waiting_ms sql_ms sql_per_request view_ms view_per_request].freeze

      module_function

      def of(trials)
        splits = trials.filter_map { |t| t["split"] if t["split"].is_a?(Hash) && t.dig("split", "requests").to_i.positive? }
        return nil if splits.empty?

        total = splits.sum { |s| s["requests"] }
        out = { "trials" => splits.size, "requests" => total }
        PER_REQUEST.each do |key|
          next unless splits.all? { |s| s.key?(key) }

          out[key] = (splits.sum { |s| s[key].to_f * s["requests"] } / total).round(3)
        end
        out["cpu_share"] = out["wall_ms"].positive? ? (out["cpu_ms"] / out["wall_ms"]).round(3) : nil
        out["threads_per_process"] = out["cpu_ms"].positive? ? (out["wall_ms"] / out["cpu_ms"]).round(1) : nil
        out["cpu_method"] = splits.map { |s| s["cpu_method"] }.uniq.join("+")
        out["waiting"] = splits.first["waiting"]
        pools = splits.filter_map { |s| s["pool"] }
        out["pool"] = pool(pools) unless pools.empty?
        out
      end

      # Means over the trials' samples; the largest size seen.
      def pool(pools)
        samples = pools.sum { |p| p["samples"].to_f }
        mean = ->(key) { samples.positive? ? (pools.sum { |p| p[key].to_f * p["samples"].to_f } / samples).round(3) : nil }
        { "size" => pools.filter_map { |p| p["size"] }.max, "busy_mean" => mean.call("busy_mean"),
          "waiting_mean" => mean.call("waiting_mean"), "waiting_share" => mean.call("waiting_share"), "samples" => samples.round }
      end
    end
  end
end
