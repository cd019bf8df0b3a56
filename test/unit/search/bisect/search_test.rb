# frozen_string_literal: true

require_relative "../../../test_helper"
require "rackbench/search/bisect/search"

# The binary search over a first-parent path, with a fake decider: which
# commits are decided, in what order, and what is named.
class BisectSearchTest < Minitest::Test
  Bisect = Rackbench::Search::Bisect

  # n commits after good; ratios: {index => B/A}, skip: indices that do not boot.
  def path(size, trees: {})
    commits = (0..size).map do |i|
      Bisect::Path::Commit.new(sha: format("%07x", i + 1) + ("f" * 33), tree: trees.fetch(i, "tree#{i}"), subject: "commit #{i}")
    end
    Bisect::Path.new("/repo", nil, described: commits)
  end

  # A decider that answers from ratios (1.0 unless given) at margin 5%.
  class Fake
    attr_reader :asked

    def initialize(ratios, skip: [], undecided: [])
      @ratios = ratios
      @skip = skip
      @undecided = undecided
      @asked = []
    end

    def call(commit, index)
      @asked << index
      base = { sha: commit.sha, tree: commit.tree, subject: commit.subject }
      return Bisect::Step.new(**base, verdict: :skipped, why: "it does not boot") if @skip.include?(index)

      r = @ratios.fetch(index, 1.0)
      verdict = if @undecided.include?(index) then :undecided
                elsif r < 0.95 then :bad
                else :good
                end
      Bisect::Step.new(**base, verdict: verdict, outcome: r < 0.95 ? :lower : :equivalent, ratio: r, ci_low: r - 0.02,
                       ci_high: r + 0.02, rounds: 5, rounds_needed: verdict == :undecided ? 14 : nil)
    end
  end

  def slow_from(first, size, by: 0.88) = (first..size).to_h { |i| [i, by] }

  def test_names_the_first_slower_commit_at_every_position
    (1..16).each do |culprit|
      fake = Fake.new(slow_from(culprit, 16))
      out = Bisect::Search.new(path(16), decider: fake).call
      assert_equal :found, out.kind, "culprit #{culprit}"
      assert_equal culprit, out.hi
      assert_equal culprit - 1, out.lo
      assert_equal 16, fake.asked.first, "bad is decided first"
      assert_operator fake.asked.size, :<=, 1 + Math.log2(16).ceil, "at most 1 + ceil(log2 N) decisions"
    end
  end

  def test_the_answer_names_the_commit_and_its_parent_first
    out = Bisect::Search.new(path(8), decider: Fake.new(slow_from(5, 8))).call
    line = out.lines(endpoint: "/posts", margin: 0.05).first
    assert_match(/\A0000006 \(commit 5\) made /, line)
    assert_includes line, "made /posts slower by 12% (95% CI 10–14%); its parent 0000005 is equivalent to good (within ±5%;"
    assert_equal 0, out.status
  end

  def test_no_slowdown_between_good_and_bad_is_nothing_to_bisect
    fake = Fake.new({})
    out = Bisect::Search.new(path(8), decider: fake).call
    assert_equal :no_slowdown, out.kind
    assert_equal [8], fake.asked
    assert_match(/\A0000009 \(commit 8\) \(bad\) is not slower than good 0000001 by more than 5% on \/x .*; nothing to bisect\z/, out.lines(endpoint: "/x", margin: 0.05).first)
  end

  def test_a_commit_that_does_not_boot_is_skipped_and_stepped_around
    fake = Fake.new(slow_from(6, 8), skip: [4])
    out = Bisect::Search.new(path(8), decider: fake).call
    assert_equal [8, 4, 3, 5, 6], fake.asked
    assert_equal :found, out.kind
    assert_equal 6, out.hi
    lines = out.lines(endpoint: "/x", margin: 0.05)
    assert_match(/\Askipped 0000005 \(commit 4\): it does not boot; bisected around it\z/, lines.last)
  end

  # As git bisect: the culprit's parent does not boot, so either may be it.
  def test_only_skipped_commits_left_names_the_range
    fake = Fake.new(slow_from(5, 8), skip: [4])
    out = Bisect::Search.new(path(8), decider: fake).call
    assert_equal [:skipped_range, 3, 5], [out.kind, out.lo, out.hi]
    assert_equal 3, out.status
    assert_includes out.lines(endpoint: "/x", margin: 0.05).first, "is one of 2 commits after 0000004 up to 0000006"
  end

  def test_undecided_step_ends_with_the_range_and_the_rounds
    fake = Fake.new(slow_from(6, 16), undecided: [4])
    out = Bisect::Search.new(path(16), decider: fake).call
    assert_equal :undecided, out.kind
    assert_equal 3, out.status
    line = out.lines(endpoint: "/x", margin: 0.05).first
    assert_includes line, "about 14 rounds would decide it"
    assert_match(/is one of \d+ commits after \h{7} up to \h{7}/, line)
  end

  def test_a_tree_seen_before_is_not_measured_again
    # commit 3 has good's tree; commit 6 has commit 5's.
    fake = Fake.new(slow_from(7, 8))
    out = Bisect::Search.new(path(8, trees: { 4 => "tree0" }), decider: fake).call
    refute_includes fake.asked, 4
    assert_equal 7, out.hi
  end

  def test_known_steps_answer_without_measuring
    first = Fake.new(slow_from(3, 8))
    Bisect::Search.new(path(8), decider: first).call
    known = []
    Bisect::Search.new(path(8), decider: Fake.new(slow_from(3, 8)), on_step: ->(s) { known << s }).call
    again = Fake.new({}) # would say "good" everywhere: it must not be asked
    out = Bisect::Search.new(path(8), decider: again, known: known).call
    assert_empty again.asked
    assert_equal 3, out.hi
  end

  def test_the_budget_ends_a_search_that_skips_too_much
    fake = Fake.new(slow_from(16, 16), skip: (1..15).to_a - [8, 12, 14, 15])
    budget = Bisect::Budget.new(16, spare: 0)
    out = Bisect::Search.new(path(16), decider: fake, budget: budget).call
    assert_operator out.spent, :<=, budget.decisions
  end
end
