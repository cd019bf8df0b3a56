# frozen_string_literal: true

require "test_helper"
require "stringio"
require "rackbench/store/run_dir"
require "rackbench/report/table"
require_relative "run_fixture"

# The first lines of the table: per endpoint, who leads at the highest level
# every setup reached, and the decision against the next setup.
class AnswerTextTest < Minitest::Test
  Fixture = Rackbench::RunFixture

  def render(trials)
    io = StringIO.new
    Rackbench::Report::Table.new(Rackbench::Report::Dataset.new(meta: {}, trials: trials), io: io).render
    io.string
  end

  def test_the_answer_comes_first_with_the_decision_against_the_next
    store = Rackbench::Store::RunDir.open(Fixture.full_run(File.join(tmpdir, "run")))
    out = render(store.trials)
    lines = out.lines.map(&:chomp)
    assert_match(/\AAnswer \(req\/s at the highest level/, lines[0])
    assert_match(%r{\A  /hello c=8: puma x2:3 10k? ?.* req/s vs unicorn x2 .*: req/s slower by 40% \(95% CI 38-42%\)\z}, lines[1],
                 "identical rounds give no certainty: the spread floor (0.5% a round) widens 40-40% to 38-42%")
    assert_match(%r{\A  /pause/0.05 c=8: puma x2:3 .* vs unicorn x2 .*: req/s slower by 40%}, lines[2])
    assert_operator out.index("Answer"), :<, out.index("/hello   "), "before the tables"
  end

  def test_one_round_says_it_cannot_decide
    trials = [Fixture.trial(setup: "puma x2:5", endpoint: "/hello", concurrency: 8, repetition: 1, rps: 1000.0, mean: 8.0),
              Fixture.trial(setup: "unicorn x2", endpoint: "/hello", concurrency: 8, repetition: 1, rps: 900.0, mean: 8.9)]
    line = render(trials).lines[1]
    assert_match(%r{/hello c=8: puma x2:5 1000 req/s vs unicorn x2 900: one round cannot decide \(run -r 3 or more, or --decide\)}, line)
  end

  def test_a_single_setup_gets_no_answer_line
    trials = [Fixture.trial(setup: "puma x2:5", endpoint: "/hello", concurrency: 8, repetition: 1, rps: 1000.0)]
    refute_match(/Answer/, render(trials))
  end
end
