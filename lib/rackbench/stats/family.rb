# frozen_string_literal: true

require_relative "decision"
require_relative "error_budget"

module Rackbench
  module Stats
    # A family of decisions (issue 45, item 2): the one place that counts
    # which comparisons share a 5% false-decision rate and decides each at
    # its share. Every kind of comparison builds its family here: a run's
    # neighbours and race (Decisions, Race), the ref gate (RefGate), tune's
    # finalists (Search::Tune::Ranking), a suite's findings.
    #
    # The rule (Bonferroni over the family, ErrorBudget over the looks): a
    # candidate that can be decided (2 values or more on each side, every
    # one finite and positive) counts in its family, decided or not; a
    # family of m such candidates gives each rate / m at every look. A
    # caller may count more (size:): the ref gate counts a head that failed
    # to boot too, so a missing cell cannot raise the others' rate.
    module Family
      module_function

      # {round => value} of trials (the trial's "repetition" is its round;
      # tune's confirmations name it "round"): get returns a trial's value
      # or nil (no value that round).
      def round_values(trials, key: "repetition", &get)
        trials.each_with_object({}) do |t, out|
          v = get.call(t)
          out[t[key] || 1] = v unless v.nil?
        end
      end

      # The values of the rounds both sides have, in round order: [xs, ys].
      def paired(rounds_a, rounds_b) = Decision.align(rounds_a, rounds_b)

      def usable?(xs, ys)
        xs.size >= 2 && ys.size >= 2 && (xs + ys).all? { |v| v.finite? && v.positive? }
      end

      # candidates: objects answering xs, ys and paired (Decisions::Candidate
      # or any Struct like it); family_of: a candidate's family name (one
      # family when not given); size: {family => count} to count beyond the
      # usable candidates. Yields each usable candidate with its Decision
      # (nil when Decision.of makes none) and returns the sizes counted.
      def decide(candidates, margin:, looks:, look: nil, family_of: ->(_) { :all }, size: {})
        usable = candidates.select { |c| usable?(c.xs, c.ys) }
        sizes = usable.map(&family_of).tally.merge(size) { |_, counted, given| [counted, given].max }
        budgets = sizes.to_h { |family, m| [family, ErrorBudget.new(looks: looks, family: m)] }
        usable.each do |c|
          yield c, Decision.of(c.xs, c.ys, paired: c.paired, margin: margin, look: look, budget: budgets.fetch(family_of.call(c)))
        end
        sizes
      end
    end
  end
end
