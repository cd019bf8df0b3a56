# frozen_string_literal: true

require_relative "path"
require_relative "step"
require_relative "budget"
require_relative "outcome"

module Rackbench
  module Search
    module Bisect
      # The search over a Path: bad against good first, then a binary search
      # between the last commit known good and the first known bad, each
      # step one decision (Step) from the decider, within the Budget's K
      # decisions. The decider is anything answering call(commit, index) ->
      # Step (CLI::BisectStep measures; tests pass a fake); it is never asked
      # twice about one tree: a commit whose tree good has is good unmeasured
      # (the same code), and a tree decided before (this bisection, or the
      # one it resumes: known) answers again. on_step: called with each Step.
      #
      # A commit that cannot be measured (:skipped) is stepped around: the
      # next midpoint is the untried commit nearest the middle. The search
      # ends (Outcome) when one commit is left between good and bad, when a
      # step is undecided (the range reached so far, and that step's rounds),
      # when only skipped commits are left, or when the K decisions are spent.
      #
      # The commit found (hi, its parent lo decided good) is then decided
      # against its parent (own: the decider's call with base:, one of the
      # K decisions), unless the parent is good or has good's tree: slower than its
      # parent by more than the margin, it alone carries the slowdown
      # (:found); not slower by more than it, the slowdown is spread over
      # the commits up to it (:spread, none named alone); undecided, it is
      # the first commit past the margin and its own share is open
      # (:found, the Outcome says so).
      class Search
        def initialize(path, decider:, budget: Budget.new(path.size), known: [], on_step: ->(_step) {})
          @path = path
          @decider = decider
          @budget = budget
          @on_step = on_step
          @by_tree = known.select { |s| s.decided? && s.base.nil? }.to_h { |s| [s.tree, s] }
          @own = known.select(&:base).to_h { |s| [[s.base, s.sha], s] }
          @skipped = known.select { |s| s.verdict == :skipped && s.base.nil? }.to_h { |s| [s.sha, s] }
          @steps = {}
          @spent = 0
        end

        attr_reader :spent

        def call
          first = step(@path.size)
          return end_with(:no_slowdown, first: first) if first.verdict == :good
          return end_with(:bad_open, first: first) unless first.verdict == :bad

          bisect(0, @path.size, first)
        end

        private

        def bisect(lo, hi, first)
          while hi - lo > 1
            mid = midpoint(lo, hi) or return end_with(:skipped_range, lo: lo, hi: hi, first: first)
            return end_with(:budget_spent, lo: lo, hi: hi, first: first) if @spent >= @budget.decisions

            found = step(mid)
            case found.verdict
            when :bad then hi = mid
            when :good then lo = mid
            when :undecided then return end_with(:undecided, lo: lo, hi: hi, first: first, open: found)
            end
          end
          found(lo, hi, first)
        end

        # The commit found, against its own parent (see the class comment).
        def found(lo, hi, first)
          commit = @path[hi]
          parent = @path[lo]
          good_code = lo.zero? || parent.tree == @path.good.tree # its step against good was this one
          return end_with(:found, lo: lo, hi: hi, first: first) if good_code || @spent >= @budget.decisions

          own = @own[[parent.sha, commit.sha]] || begin
            @spent += 1
            @decider.call(commit, hi, base: parent)
          end
          @on_step.call(own)
          end_with(own.verdict == :good ? :spread : :found, lo: lo, hi: hi, first: first, own: own)
        end

        # The commit nearest the middle of (lo, hi) not skipped; nil if none.
        def midpoint(lo, hi)
          middle = (lo + hi) / 2.0
          ((lo + 1)...hi).reject { |i| skipped?(i) }.min_by { |i| [(i - middle).abs, i] }
        end

        def skipped?(index) = @skipped.key?(@path[index].sha)

        # The Step of the commit at index: good's own tree, a tree decided
        # before, or the decider's (one decision spent; a skip spends none).
        def step(index)
          commit = @path[index]
          found = @steps[index] ||= cached(commit) || measured(commit, index)
          @skipped[commit.sha] = found if found.verdict == :skipped
          found
        end

        def cached(commit)
          if commit.tree == @path.good.tree
            return record(Step.new(sha: commit.sha, tree: commit.tree, subject: commit.subject, verdict: :good,
                                   outcome: :equivalent, why: "the same tree as good: the same code, not measured"))
          end
          known = @by_tree[commit.tree] or return nil
          why = known.sha == commit.sha ? "measured before (#{known.dir || 'stored'})" : "the same tree as #{known.short}, measured before"
          record(known.dup.tap do |s|
            s.sha = commit.sha
            s.subject = commit.subject
            s.why = why
          end)
        end

        def measured(commit, index)
          found = @decider.call(commit, index)
          @spent += 1 unless found.verdict == :skipped
          @by_tree[commit.tree] = found if found.decided?
          record(found)
        end

        def record(found)
          @on_step.call(found)
          found
        end

        def end_with(kind, lo: nil, hi: nil, first: nil, open: nil, own: nil)
          Outcome.new(kind: kind, path: @path, lo: lo, hi: hi, first: first, open: open, own: own, steps: @steps.dup,
                      spent: @spent, budget: @budget)
        end
      end
    end
  end
end
