# frozen_string_literal: true

module Rackbench
  module Search
    module Bisect
      # One commit decided against good: the verdict the search reads and
      # the figures its words print (B/A of req/s at the step's own rate).
      #
      #   :bad        decided slower than good by more than the margin
      #               (the interval lies wholly below 1 - margin);
      #   :good       its interval lies above 1 - margin: equivalent, faster,
      #               or not slower by more than the margin;
      #   :undecided  the interval reaches below 1 - margin and above it when
      #               the step's rounds ran out (rounds_needed: about how many
      #               would decide it);
      #   :skipped    it could not be measured (the app does not boot there):
      #               why says so, and the search steps around it.
      #
      # outcome: the decision's own (Stats::Decision#outcome: :equivalent,
      # :lower, :direction_lower ...), for the words. dir: the step's run
      # directory (its rounds), or nil. installs: what the step's run
      # installed for a commit's Gemfile.lock (good's or its own: one line
      # each), or nil. base: the commit it was decided against when that is
      # not good (the found commit against its parent: Search#own), or nil.
      # Stored as one line of bisect.jsonl.
      VERDICTS = %i[bad good undecided skipped].freeze
      Step = Struct.new(:sha, :tree, :subject, :verdict, :outcome, :ratio, :ci_low, :ci_high, :rounds, :rounds_needed,
                        :dir, :why, :installs, :base, keyword_init: true) do
        def short = sha[0, 7]
        def decided? = %i[bad good].include?(verdict)

        def to_h
          to_a.zip(members).to_h { |v, k| [k.to_s, v.is_a?(Symbol) ? v.to_s : v] }.compact
        end

        def self.from_h(row)
          new(**members.to_h { |k| [k, row[k.to_s]] }).tap do |s|
            s.verdict = s.verdict&.to_sym
            s.outcome = s.outcome&.to_sym
          end
        end
      end
    end
  end
end
