# frozen_string_literal: true

require_relative "../../stats/decision"
require_relative "../../stats/decisions"
require_relative "../../stats/family"
require_relative "../../server"
require_relative "racing"

module Rackbench
  module Search
    class Tune
      # Round 3's decision between the finalists, from their paired rounds at
      # one offered rate (ConfirmRound: every finalist once per round, a
      # fresh boot each, in a fresh random order). For each pair A/B and each
      # of req/s (successful responses), p99 and PSS footprint, a
      # Stats::Decision on the ratio B / A from the per-round log ratios
      # (paired: Student's t over the rounds both ran). PSS is sampled once per
      # boot and every finalist boots once per round, so it pairs by round too.
      # The pairs' req/s decisions are one family and their p99 and PSS ones
      # another, each at 5% over every decision in it and over the looks
      # ConfirmRound takes (Stats::Decisions' families, Stats::Looks), so the
      # interval each decision prints is the one it was decided on.
      #
      # The rule, for two finalists (the first that applies):
      #   1. one holds the SLO in most of its rounds and the other does not:
      #      the one that holds (the SLO is the user's constraint);
      #   2. req/s decided apart (beyond the margin): the faster;
      #   3. p99 decided apart: the lower (at a throughput not decided apart);
      #   4. PSS decided apart: the smaller. So finalists equivalent on req/s
      #      and p99 go to the smaller footprint, and so do finalists whose
      #      req/s or p99 no round decided: a difference that cannot be shown
      #      does not buy memory;
      #   5. fewer processes (the master and its workers; 1 single-process);
      #   6. the knee search's order (the finalists as given).
      # Three finalists: each scores the others it beats (Copeland), ties by
      # the knee order. A is the better of each pair as first ranked in the
      # knee order, so the words read from the winner's side; the decisions
      # are then taken again in that orientation (the margin's bounds,
      # ln 0.95 and ln 1.05, are not quite symmetric) and ranked once more.
      #
      # A pair is settled when a performance difference decided it (2, 3; or
      # 1 with p99 decided apart too), or when req/s and p99 are equivalent
      # and PSS is not undecided; otherwise more rounds could change it, and
      # rounds_needed says about how many (Decision#rounds_needed).
      class Ranking
        METRICS = Stats::Decisions::METRICS # rps, latency_ms.p99, memory.pss_total_mb
        VALUE = {
          "rps" => ->(r) { r["goodput_rps"] || r["rps"] },
          "latency_ms.p99" => ->(r) { r.dig("latency_ms", "p99") },
          "memory.pss_total_mb" => ->(r) { r.dig("memory", "pss_total_mb") }
        }.freeze
        BASIS = { "rps" => :rps, "latency_ms.p99" => :p99, "memory.pss_total_mb" => :pss }.freeze
        RULE = "paired rounds at one offered rate; holding the SLO first, then req/s decided apart (the faster), " \
               "then p99 decided apart (the lower), then PSS decided apart (the smaller), then fewer processes; " \
               "finalists equivalent on req/s and p99, or not decided apart on them, go to the smaller footprint"

        # One metric of one pair, as Stats::Family decides it.
        Candidate = Struct.new(:pair, :metric, :xs, :ys, :paired, keyword_init: true)

        # One pair's decisions (metric => Stats::Decisions::Entry), the better
        # of the two and the rule that chose it.
        Pair = Struct.new(:a, :b, :entries, :better, :basis, keyword_init: true) do
          def other(entry) = entry.equal?(a) ? b : a
          def outcome(metric) = entries[metric]&.decision&.outcome
          def decided?(metric) = %i[higher lower].include?(outcome(metric))

          def settled?
            case basis
            when :rps, :p99 then true
            when :slo then decided?("latency_ms.p99")
            else outcome("rps") == :equivalent && outcome("latency_ms.p99") == :equivalent &&
              Stats::Decision::DECIDED.include?(outcome("memory.pss_total_mb"))
            end
          end

          # About how many rounds in all would decide what is still undecided.
          def rounds_needed
            entries.values.map(&:decision).reject { |d| Stats::Decision::DECIDED.include?(d.outcome) }.filter_map(&:rounds_needed).max
          end

          def rounds = entries.values.map { |e| e.decision.rounds }.max
        end

        attr_reader :order, :pairs, :rate, :slo, :margin, :looks

        # finalists: entries whose confirms carry "round"; rate: the offered
        # rate; looks: ConfirmRound's stopping design (Stats::Looks), the
        # look at the rounds run so far.
        def initialize(finalists, slo:, margin:, endpoint:, rate:, looks: Stats::Looks.fixed)
          @finalists = finalists
          @slo = slo
          @margin = margin
          @endpoint = endpoint
          @rate = rate
          @looks = looks
          @look = finalists.flat_map { |e| e.confirms.map { |r| r["round"].to_i } }.max
          first = rank(finalists, build(finalists))
          @pairs = build(first)
          @order = rank(finalists, @pairs)
        end

        def winner = @order.first

        def pair(x, y)
          @pairs.find { |p| (p.a.equal?(x) && p.b.equal?(y)) || (p.a.equal?(y) && p.b.equal?(x)) }
        end

        # The winner's pairs that more rounds could still change.
        def open
          @pairs.select { |p| (p.a.equal?(winner) || p.b.equal?(winner)) && !p.settled? }
        end

        def entries = @pairs.flat_map { |p| p.entries.values }

        def holds?(entry) = Racing.confirmation(entry.confirms, @slo)["holds"]

        def self.processes(setup)
          Server.adapter_class(setup.server).new.runs_one_process?(setup) ? 1 : setup.workers + 1
        end

        private

        # Every pair's metrics that can be decided count in their family
        # (Stats::Family), decided or not; then each is decided at its share.
        def build(list)
          pairs = list.combination(2).map { |a, b| Pair.new(a: a, b: b, entries: {}) }
          candidates = pairs.flat_map do |p|
            METRICS.map do |m|
              xs, ys = by_round(p.a, p.b, VALUE.fetch(m))
              Candidate.new(pair: p, metric: m, xs: xs, ys: ys, paired: true)
            end
          end
          Stats::Family.decide(candidates, margin: @margin, looks: @looks, look: @look,
                                           family_of: ->(c) { Stats::Decisions::FAMILY.fetch(c.metric) }) do |c, d|
            c.pair.entries[c.metric] = d && entry(c.pair.a, c.pair.b, c.metric, d)
          end
          pairs.each { |p| p.entries.compact! }
          pairs.each { |p| p.better, p.basis = judge(p) }
        end

        # Copeland: the finalists that beat the most others first, then the knee order.
        def rank(list, pairs)
          wins = Hash.new(0).compare_by_identity
          pairs.each { |p| wins[p.better] += 1 }
          list.sort_by { |e| [-wins[e], @finalists.index(e)] }
        end

        def entry(a, b, metric, decision)
          Stats::Decisions::Entry.new(endpoint: @endpoint, level: @rate, loop: "open", a: a.label, b: b.label,
                                      metric: metric, decision: decision)
        end

        # The metric's values of the rounds both ran, in round order.
        def by_round(a, b, get)
          Stats::Family.paired(per_round(a, get), per_round(b, get))
        end

        # A round the load generator could not hold measured the client, not
        # the finalist, and a round not valid (it did not hold its schedule:
        # the record says "valid": false) measured no steady rate: each is a
        # miss of the SLO (holds?) and no value here, so no decision rests on it.
        def per_round(entry, get)
          usable = entry.confirms.reject { |r| @slo.client_bound?(r) || r["valid"] == false }
          Stats::Family.round_values(usable, key: "round") { |r| get.call(r) }
        end

        def judge(pair)
          a = pair.a
          b = pair.b
          return [holds?(a) ? a : b, :slo] if holds?(a) != holds?(b)

          METRICS.each do |m|
            next unless pair.decided?(m)

            b_better = m == "rps" ? pair.outcome(m) == :higher : pair.outcome(m) == :lower
            return [b_better ? b : a, BASIS.fetch(m)]
          end
          pa = self.class.processes(a.setup)
          pb = self.class.processes(b.setup)
          return [pa < pb ? a : b, :processes] if pa != pb

          [@finalists.index(a) <= @finalists.index(b) ? a : b, :order]
        end
      end
    end
  end
end
