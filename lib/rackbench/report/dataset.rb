# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/metrics"
require_relative "../stats/interval"
require_relative "../stats/decisions"
require_relative "../stats/margin"
require_relative "../store/packed_trials"
require_relative "../store/profiles"
require_relative "../stats/attribution"
require_relative "../stats/frame_stacks"

module Rackbench
  module Report
    # Everything a report shows, read from a run directory alone: meta.json,
    # trials.jsonl, setups.jsonl, grouped into cells. Every reporter (HTML,
    # Markdown, CSV, JSON) renders one of these; none of them measures.
    #
    # A stored run's trials are held packed (Store::PackedTrials: ~1.2 KB a
    # trial, not ~9 KB): #trials are then Store::PackedRefs, each read as
    # its Hash ([], dig, key?, fetch) and to_h where a Hash itself is
    # needed; a cell's trials (cells) are Hashes.
    class Dataset
      attr_reader :meta, :trials, :setup_rows, :cells, :path, :calibration

      # margin: the equivalence margin of the decisions (a share); nil: the
      # run's own (meta.json's config), else Stats::Decision's default.
      def self.from_store(store, margin: nil)
        new(meta: store.meta, trials: Store::PackedTrials.read(store), setup_rows: store.setups, path: store.path, margin: margin,
            calibration: store.calibration)
      end

      # calibration: calibration.jsonl's lines (the CPU-speed calibrations).
      def initialize(meta:, trials:, setup_rows: [], path: nil, margin: nil, calibration: [])
        @meta = meta.is_a?(Hash) ? meta : {}
        @margin = Stats::Margin.of(margin, @meta)
        @trials = trials
        @setup_rows = setup_rows
        @path = path
        @calibration = calibration
        @cells = Stats::Cells.new(trials)
      end

      def endpoints = @cells.endpoints
      def setups = @cells.setups
      def levels = @cells.levels
      def metrics = @metrics ||= Stats::Metrics.for(@trials)

      def failed_setups
        @setup_rows.select { |s| s["status"] == "failed" }
      end

      # Cells whose trials counted errors (connect, read, write, timeout, status).
      def error_cells
        @cells.cells.select { |c| c.errors.positive? }
      end

      # The runner's notes on trials ("notes": [text]), each with the cells it applies to.
      def notes
        @trials.each_with_object(Hash.new { |h, k| h[k] = [] }) do |t, out|
          Array(t["notes"]).each { |note| out[note.to_s] |= ["#{t['setup']} #{t['endpoint']}"] }
        end
      end

      # Every decision between setups, cell by cell (Stats::Decisions: paired
      # rounds, the margin, the families and the looks: Stats::Decisions).
      def decisions
        @decisions ||= Stats::Decisions.for_run(@trials, margin: @margin, looks: Stats::Looks.for_config(@meta["config"]), cells: @cells,
                                                                         config: @meta["config"])
      end

      # run --profile: where each decided req/s difference went, {[endpoint,
      # level, a, b] => Stats::Attribution} over the run's profiles.jsonl
      # ({} without one). Only decided pairs: the answer's line is theirs.
      def attributions
        @attributions ||= begin
          times = frame_times
          entries = times.empty? ? [] : decisions.entries.select { |e| e.metric == "rps" && e.decided? }
          entries.filter_map { |e| (a = Stats::Attribution.for(e, times)) && [[e.endpoint, e.level, e.a, e.b], a] }.to_h
        end
      end

      # Stats::FrameTimes of the run's profiles.jsonl ({} without one), read once.
      def frame_times
        @frame_times ||= Stats::FrameTimes.of(@path ? Store::Profiles.new(@path).read : [])
      end

      # Stats::FrameStacks of the run's profiles.jsonl ({} without one or
      # without stacks), read once: the speedscope file and the flame graphs.
      def frame_stacks
        @frame_stacks ||= Stats::FrameStacks.of(@path ? Store::Profiles.new(@path).read : [])
      end

      def memory? = (@sampled ||= {}).fetch("memory") { @sampled["memory"] = sampled?("memory") }
      def cpu? = (@sampled ||= {}).fetch("cpu") { @sampled["cpu"] = sampled?("cpu") }

      # The load loops found in the trials: "closed" (wrk: latency measured from
      # each request's send, hiding coordinated omission) or "open".
      def loops
        @loops ||= @trials.map { |t| t["loop"] }.compact.uniq
      end

      def repetitions
        @cells.cells.map(&:repetitions).minmax
      end

      # The highest concurrency every (endpoint, setup) pair ran at; failing
      # that, the highest every endpoint ran at; failing that, the highest.
      def common_level
        pairs = @cells.cells.group_by { |c| [c.endpoint, c.setup] }.values
        common = pairs.map { |cs| cs.map(&:level) }.reduce(:&)
        common = endpoints.map { |e| @cells.levels(e) }.reduce(:&) if common.nil? || common.empty?
        (common.nil? || common.empty? ? levels : common).max
      end

      # Point (median), summary and 95% t-interval of one metric in one cell;
      # nil when the cell or the metric is missing.
      def figure(endpoint, setup, concurrency, metric_key)
        cell = @cells[endpoint, setup, concurrency] or return nil
        metric = Stats::Metrics[metric_key]
        summary = metric.summary(cell.records) # one field of each trial, not decoded whole (Stats::Cells)
        return nil if summary.n.zero?

        { summary: summary, interval: metric.interval(cell.records), errors: cell.errors }
      end

      def ci_method = Stats::Interval.description

      private

      def sampled?(group)
        @trials.any? { |t| t[group].is_a?(Hash) && t[group].values.any?(Numeric) }
      end
    end
  end
end
