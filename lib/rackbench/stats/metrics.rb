# frozen_string_literal: true

require_relative "summary"
require_relative "interval"

module Rackbench
  module Stats
    # The named per-trial figures reports show and compare: where each lives in
    # a trial record, its unit, and which direction is better. Memory and CPU
    # figures exist only when the runner sampled them (trial keys "memory" and
    # "cpu"); every reader here tolerates their absence, and numeric keys not
    # listed below are picked up under their own names.
    module Metrics
      Metric = Struct.new(:key, :label, :path, :unit, :better, keyword_init: true) do
        # Numbers this metric has in the trials; non-numeric and missing ones are skipped.
        def values(trials)
          trials.filter_map do |trial|
            value = Metrics.dig(trial, path)
            value.to_f if value.is_a?(Numeric)
          end
        end

        def summary(trials)
          Summary.of(values(trials))
        end

        # 95% t-interval, truncated at 0: every metric here is non-negative.
        def interval(trials)
          Interval.of(values(trials), floor: 0.0)
        end
      end

      CORE = [
        Metric.new(key: "rps", label: "req/s", path: %w[rps], unit: "req/s", better: :higher),
        Metric.new(key: "goodput_rps", label: "goodput", path: %w[goodput_rps], unit: "req/s", better: :higher),
        Metric.new(key: "latency_ms.mean", label: "mean latency", path: %w[latency_ms mean], unit: "ms", better: :lower),
        Metric.new(key: "latency_ms.p50", label: "p50 latency", path: %w[latency_ms p50], unit: "ms", better: :lower),
        Metric.new(key: "latency_ms.p90", label: "p90 latency", path: %w[latency_ms p90], unit: "ms", better: :lower),
        Metric.new(key: "latency_ms.p99", label: "p99 latency", path: %w[latency_ms p99], unit: "ms", better: :lower),
        Metric.new(key: "latency_ms.max", label: "max latency", path: %w[latency_ms max], unit: "ms", better: :lower)
      ].freeze

      # Labels of the sampled figures the runner stores (Sampling::TrialSummary#to_h).
      # CPU % is of one core (100 = one core busy); shares are fractions of the machine.
      KNOWN = {
        "memory.pss_total_mb" => ["PSS footprint", "MiB"], "memory.pss_total_max_mb" => ["PSS footprint (max)", "MiB"],
        "memory.pss_per_worker_mb" => ["PSS per worker", "MiB"], "memory.pss_master_mb" => ["PSS master", "MiB"],
        "memory.uss_total_mb" => ["USS total", "MiB"], "memory.rss_sum_mb" => ["RSS sum", "MiB"],
        "memory.rss_max_mb" => ["RSS max", "MiB"],
        "cpu.server_pct" => ["server CPU", "%"], "cpu.client_pct" => ["load generator CPU", "%"],
        "cpu.master_pct" => ["master CPU", "%"], "cpu.workers_pct" => ["workers CPU", "%"],
        "cpu.proxy_pct" => ["proxy CPU (in front)", "%"],
        "cpu.sampler_pct" => ["sampler CPU", "%"], "cpu.server_machine_share" => ["server share of machine", ""],
        "cpu.client_machine_share" => ["load generator share of machine", ""], "cpu.cores" => ["cores", ""]
      }.freeze

      module_function

      def [](key)
        CORE.find { |m| m.key == key } || sampled(key)
      end

      # CORE plus every numeric memory.* and cpu.* key found in the trials.
      def for(trials)
        CORE + %w[memory cpu].flat_map do |group|
          trials.flat_map { |t| t[group].is_a?(Hash) ? t[group].select { |_, v| v.is_a?(Numeric) }.keys : [] }
                .uniq.map { |name| sampled("#{group}.#{name}") }
        end
      end

      def sampled(key)
        group, name = key.split(".", 2)
        label, unit = KNOWN.fetch(key) { [name.tr("_", " "), unit_of(name)] }
        Metric.new(key: key, label: label, path: [group, name], unit: unit, better: :lower)
      end

      def unit_of(name)
        return "MiB" if name.end_with?("_mb") # the sampler's *_mb are bytes / 1024^2 (Sampling::TrialSummary)
        return "%" if name.end_with?("_pct")

        ""
      end

      # Hash#dig that answers nil instead of raising when a level is not a
      # Hash (or a record read as one: Store::PackedRef).
      def dig(record, path)
        path.reduce(record) { |node, key| node.is_a?(Hash) || node.respond_to?(:to_hash) ? node[key] : nil }
      end
    end
  end
end
