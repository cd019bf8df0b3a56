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

  # A decider that answers from ratios (1.0 unless given) at margin 5%;
  # against a base (the found commit's own step), the ratio of the two.
  class Fake
    attr_reader :asked, :own

    def initialize(ratios, skip: [], undecided: [])
      @ratios = ratios
      @skip = skip
      @undecided = undecided
      @asked = []
      for_path
    end

    def call(commit, index, base: nil)
      base ? (@own ||= []) << index : @asked << index
      on = base ? @path_ratio.call(base) : 1.0
      fields = { sha: commit.sha, tree: commit.tree, subject: commit.subject, base: base&.sha }
      return Bisect::Step.new(**fields, verdict: :skipped, why: "it does not boot") if @skip.include?(index) && !base

      r = @ratios.fetch(index, 1.0) / on
      verdict = if (@undecided.include?(index) && !base) || (base && @own_undecided) then :undecided
                elsif r < 0.95 then :bad
                else :good
                end
      Bisect::Step.new(**fields, verdict: verdict, outcome: r < 0.95 ? :lower : :equivalent, ratio: r, ci_low: r - 0.02,
                       ci_high: r + 0.02, rounds: 5, rounds_needed: verdict == :undecided ? 14 : nil)
    end

    # The ratio to good of a commit given as a Path::Commit (its index is
    # its subject's number), for the own step.
    def for_path(own_undecided: false)
      @own_undecided = own_undecided
      @path_ratio = ->(c) { @ratios.fetch(c.subject[/\d+/].to_i, 1.0) }
      self
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
      assert_operator fake.asked.size, :<=, 1 + Math.log2(16).ceil, "at most 1 + ceil(log2 N) decisions against good"
      culprit == 1 ? assert_nil(fake.own) : assert_equal([culprit], fake.own, "the found commit against its parent")
      assert_equal :bad, out.own.verdict unless culprit == 1
    end
  end

  def test_the_answer_names_the_commit_and_its_parent_first
    out = Bisect::Search.new(path(8), decider: Fake.new(slow_from(5, 8))).call
    line = out.lines(endpoint: "/posts", margin: 0.05).first
    assert_match(/\A0000006 \(commit 5\) made /, line)
    assert_includes line, "made /posts slower by 12% (95% CI 10–14%); its parent 0000005 is equivalent to good (within ±5%;"
    assert_match(/; against its parent alone it is slower by 12% \(95% CI 10–14%\)\z/, line)
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

  def test_a_parent_with_goods_tree_is_not_decided_against_again
    fake = Fake.new(slow_from(5, 8))
    out = Bisect::Search.new(path(8, trees: { 4 => "tree0" }), decider: fake).call
    assert_equal [:found, 5, nil], [out.kind, out.hi, fake.own]
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

  # Issue 44, item 3: 3 x 4% over commits 3, 4 and 5 (12% at bad). The
  # first past 5% is commit 4 (8%), but against its parent (4%) it is not
  # slower by more than 5%: the slowdown is spread, none named alone.
  def test_a_slowdown_spread_over_commits_names_the_range_not_one_commit
    ratios = { 3 => 0.96, 4 => 0.92, 5 => 0.88, 6 => 0.88, 7 => 0.88, 8 => 0.88 }
    fake = Fake.new(ratios)
    out = Bisect::Search.new(path(8), decider: fake).call
    assert_equal [:spread, 3, 4], [out.kind, out.lo, out.hi]
    assert_equal [4], fake.own
    assert_nil out.named
    assert_equal 3, out.status, "a range, not a commit"
    line = out.lines(endpoint: "/x", margin: 0.05).first
    assert_match(%r{\Athe slowdown on /x is spread over the 4 commits after good 0000001 up to 0000005, none named alone: }, line)
    assert_includes line, "0000005 (commit 4) is the first slower than good by more than 5% (by 8% (95% CI 6–10%)), but " \
                          "against its parent 0000004 it is not slower by more than 5% (B/A 0.958"
  end

  def test_an_undecided_own_step_names_the_commit_and_says_its_share_is_open
    out = Bisect::Search.new(path(8), decider: Fake.new(slow_from(5, 8)).for_path(own_undecided: true)).call
    assert_equal [:found, 5], [out.kind, out.hi]
    assert_equal 0, out.status
    assert_includes out.lines(endpoint: "/x", margin: 0.05).first,
                    "; whether it alone carries the slowdown is undecided (against its parent: B/A 0.880"
  end

  def test_a_known_own_step_is_not_measured_again
    known = []
    Bisect::Search.new(path(8), decider: Fake.new(slow_from(5, 8)), on_step: ->(s) { known << s }).call
    assert(known.any?(&:base), "the own step is reported (and stored) with its base")
    again = Fake.new({})
    out = Bisect::Search.new(path(8), decider: again, known: known).call
    assert_nil again.own
    assert_equal [:found, :bad], [out.kind, out.own.verdict]
  end
end
