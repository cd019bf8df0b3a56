# frozen_string_literal: true

module Rackbench
  module Stats
    class Verdict
      # The verdict of a cell from its trials' verdicts, the same whatever
      # order the trials come in (a run's rounds come in a random order):
      # the most common kind; a tie goes to the kind the rules try first
      # (Verdict::KINDS: the more specific finding over "below capacity");
      # told by the median trial of that kind by req/s (the lower middle of
      # an even count; ties by key and repetition). When trials disagree, the
      # reason says how many were of each kind.
      module VerdictCell
        module_function

        def for(trials)
          results = trials.map { |t| Verdict.for(t) }
          return nil if results.empty?

          counts = results.map(&:kind).tally
          kind = counts.keys.max_by { |k| [counts[k], -(KINDS.index(k) || KINDS.size)] }
          told = median(trials.zip(results).select { |_, r| r.kind == kind })
          return told if counts.size == 1

          told.dup.tap { |r| r.reason = "#{r.reason} [#{agreement(counts, kind, results.size)}]" }
        end

        def median(pairs)
          sorted = pairs.sort_by { |t, _| [t["rps"].to_f, t["key"].to_s, t["repetition"].to_i, t["started_at"].to_s] }
          sorted[(sorted.size - 1) / 2].last
        end

        # "2 of 4 trials; the others: below capacity 2"
        def agreement(counts, kind, total)
          others = counts.reject { |k, _| k == kind }.sort_by { |k, n| [-n, KINDS.index(k) || KINDS.size] }
          "#{counts[kind]} of #{total} trials; the others: #{others.map { |k, n| "#{LABELS.fetch(k, k)} #{n}" }.join(', ')}"
        end
      end
    end
  end
end
