# frozen_string_literal: true

require "test_helper"
require "rackbench/report/answer_text"
require "rackbench/report/html/answer"
require_relative "run_fixture"

# Issue 42, item 3: a race's answer, in the terminal and the HTML report:
# the winner with the interval it was decided on, an equivalence group, or
# undecided with the leader and its closest contender.
class RaceAnswerTest < Minitest::Test
  F = Rackbench::RunFixture
  Stats = Rackbench::Stats

  def cell(bases, endpoint, rounds: 6, spread: 0.005)
    rng = Random.new(7)
    bases.flat_map do |setup, base|
      values = Array.new(rounds) { base * Math.exp(spread * 2 * (rng.rand - 0.5)) }
      F.repetitions(values, little: true, setup: setup, endpoint: endpoint, concurrency: 8)
    end
  end

  def trials
    cell({ "thin" => 1500.0, "puma x2:5" => 1000.0, "unicorn x2" => 700.0 }, "/hello") +
      cell({ "thin" => 100.0, "puma x2:5" => 800.0, "unicorn x2" => 801.0 }, "/pause/0.01") +
      cell({ "thin" => 100.0, "puma x2:5" => 101.0, "unicorn x2" => 99.0 }, "/fibonacci/25", spread: 0.4, rounds: 3)
  end

  def decisions(config = { "decide" => true, "max_rounds" => 6, "repeat" => 1 })
    Stats::Decisions.for_run(trials, looks: Stats::Looks.for_config(config), config: config)
  end

  def lines = Rackbench::Report::AnswerText.lines(trials, decisions).to_h { |l| [l[%r{\A\S+}], l] }

  def test_the_answer_says_each_race
    assert_match(%r{\A/hello c=8: thin 15\d\d req/s fastest: puma x2:5 1000 slower by 33% \(95% CI [\d.]+-[\d.]+%\); unicorn x2 slower too\z},
                 lines["/hello"])
    assert_match(%r{\A/pause/0.01 c=8: unicorn x2 80\d req/s leads an equivalence group: puma x2:5 80\d equivalent within \+-5% .*; thin slower\z},
                 lines["/pause/0.01"])
    assert_match(%r{\A/fibonacci/25 c=8: undecided after 3 rounds: \S+( x2(:5)?)? [\d.]+ req/s leads; .*, 1 more racing\z}, lines["/fibonacci/25"])
  end

  def test_not_a_race_keeps_the_neighbours_words
    plain = Rackbench::Report::AnswerText.lines(trials, decisions({ "decide" => false })).first
    assert_match(%r{: thin 15\d\d req/s vs puma x2:5 1000: req/s slower by 33%}, plain)
  end

  def test_the_html_answer_says_the_race_too
    data = Struct.new(:trials, :decisions, :cells, :setups).new(trials, decisions, Stats::Cells.new(trials), %w[a b c])
    html = +""
    Rackbench::Report::Html::Answer.new(data).each_piece { |p| html << p }
    assert_match(/thin 15\d\d req\/s fastest: puma x2:5 1000 slower by 33%/, html)
    assert_includes html, "leads an equivalence group"
  end
end
