# frozen_string_literal: true

require_relative "frame_times"
require_relative "paired_difference"
require_relative "false_discovery"

module Rackbench
  module Stats
    # Where a req/s difference went (run --profile): for one pair of a cell
    # (a Decisions entry on req/s, B against A), each frame's self time per
    # request and each counter per request (FrameTimes), paired by round as
    # the decision is (the same rounds, PairedDifference: B - A), the
    # frames one family held to a 5% false discovery rate (FalseDiscovery:
    # Benjamini-Hochberg), the counters another. The frames named are the
    # discoveries, largest change first, each with its FCR-adjusted interval.
    #
    # Frames under MIN_SHARE of the larger side's profiled CPU per request
    # (on both sides) are not tested: a few samples a round cannot name a
    # change, and every test tested widens the family's threshold.
    #
    # Checked against the decision: the profiled CPU per request of B less
    # A's (total) against the change the req/s interval implies, were
    # every request's CPU the throughput's limit (a CPU-bound server at this
    # level: time per request ~ 1 / req/s; not so for a server that waits
    # on IO or the GVL, where the two need not agree), and the part of the
    # total no named frame accounts for (unexplained).
    class Attribution
      MIN_SHARE = 0.005

      Change = Struct.new(:kind, :name, :file, :a, :b, :change, :low, :high, :p, :decided, keyword_init: true) do
        def to_h
          { "kind" => kind, "name" => name, "file" => file, "a" => a.round(6), "b" => b.round(6),
            "change" => change.round(6), "ci_low" => low.round(6), "ci_high" => high.round(6), "p" => p.round(6),
            "decided" => decided }.compact
        end
      end

      attr_reader :entry, :named, :counters, :total, :tested, :rounds, :alpha

      # entry: a Decisions::Entry on req/s; times: FrameTimes.of(profiles).
      # nil when either side has fewer than 2 profiled rounds in common.
      def self.for(entry, times)
        a = times[[entry.endpoint, entry.level, entry.a]]
        b = times[[entry.endpoint, entry.level, entry.b]]
        return nil unless a && b

        rounds = (a.keys & b.keys).sort
        rounds.size < 2 ? nil : new(entry, a.slice(*rounds), b.slice(*rounds))
      end

      def initialize(entry, a, b)
        @entry = entry
        @rounds = a.size
        @total = PairedDifference.of(a.transform_values(&:total), b.transform_values(&:total))
        @named, @tested, @alpha = frames(a, b)
        @counters = counter_changes(a, b)
      end

      def named_sum = @named.sum(&:change)

      # The profiled change no named frame accounts for (ms per request).
      def unexplained = @total.mean - named_sum

      # [point, low, high]: the change of A's CPU per request the req/s
      # decision implies (its own interval), were CPU per request ~ 1 / req/s.
      def implied
        d = @entry.decision
        base = @total.a_mean
        [base * (1 / d.ratio - 1), base * (1 / d.ci_high - 1), base * (1 / d.ci_low - 1)]
      end

      # The profiled total change lies within what the req/s interval implies.
      def consistent?
        _, low, high = implied
        @total.mean.between?(low, high)
      end

      def to_h
        low, high = @total.interval(0.05)
        point, i_low, i_high = implied
        { "endpoint" => @entry.endpoint, "level" => @entry.level, "a" => @entry.a, "b" => @entry.b, "rounds" => @rounds,
          "unit" => "ms of CPU per request (self time)", "frames_tested" => @tested, "fdr" => FalseDiscovery::Q,
          "interval_confidence" => (1 - @alpha).round(6), "frames" => @named.map(&:to_h), "counters" => @counters.map(&:to_h),
          "total" => { "a" => @total.a_mean.round(6), "b" => @total.b_mean.round(6), "change" => @total.mean.round(6),
                       "ci_low" => low.round(6), "ci_high" => high.round(6) },
          "implied_by_rps" => { "change" => point.round(6), "ci_low" => i_low.round(6), "ci_high" => i_high.round(6) },
          "named_change" => named_sum.round(6), "unexplained" => unexplained.round(6), "consistent" => consistent? }
      end

      private

      def frames(a, b)
        ids = (a.values + b.values).flat_map { |r| r.frames.keys }.uniq
        floor = MIN_SHARE * [@total.a_mean, @total.b_mean].max
        tests = ids.filter_map do |id|
          diff = PairedDifference.of(a.transform_values { |r| r.frames.fetch(id, 0.0) }, b.transform_values { |r| r.frames.fetch(id, 0.0) })
          [id, diff] if diff && [diff.a_mean, diff.b_mean].max >= floor
        end
        found = FalseDiscovery.discoveries(tests.map { |_, d| d.p })
        alpha = FalseDiscovery.interval_alpha(found.size, tests.size)
        named = found.map { |i| change("frame", *tests[i][0], tests[i][1], alpha).tap { |c| c.decided = true } }
        named = named.sort_by { |c| -c.change.abs }
        [named, tests.size, alpha]
      end

      # Every counter with its own interval; decided (p) within their family.
      def counter_changes(a, b)
        present = (a.values + b.values).flat_map { |r| r.counters.keys }.uniq
        names = (FrameTimes::COUNTERS & present) + present.select { |n| n.start_with?(FrameTimes::STATEMENT) }.sort
        tests = names.filter_map do |name|
          diff = PairedDifference.of(a.transform_values { |r| r.counters.fetch(name, 0.0) }, b.transform_values { |r| r.counters.fetch(name, 0.0) })
          [name, diff] if diff
        end
        found = FalseDiscovery.discoveries(tests.map { |_, d| d.p })
        alpha = FalseDiscovery.interval_alpha(found.size, tests.size)
        tests.each_with_index.map do |(name, diff), i|
          change("counter", name, nil, diff, alpha).tap { |c| c.decided = found.include?(i) }
        end
      end

      def change(kind, name, file, diff, alpha)
        low, high = diff.interval(alpha)
        Change.new(kind: kind, name: name, file: file, a: diff.a_mean, b: diff.b_mean, change: diff.mean, low: low, high: high, p: diff.p)
      end
    end
  end
end
