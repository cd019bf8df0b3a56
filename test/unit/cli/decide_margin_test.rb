# frozen_string_literal: true

require "test_helper"

# Issue 46: run --decide with a small --margin was silent for minutes
# before its first line (the check of the design tried every --max-rounds
# with every look). It is refused at once, in one line, before any server
# is booted or run directory made.
class CliDecideMarginTest < Minitest::Test
  def test_a_margin_too_small_to_decide_is_refused_in_one_line
    out_dir = File.join(tmpdir, "run")
    spawned = Rackbench::ProcessControl::Registry.history.size
    status, _out, err = run_cli("run", "--decide", "--margin", "0.01", "-s", "puma x1:1", "-s", "puma x1:2", "-o", out_dir)
    assert_equal 2, status, err
    assert_equal "Error: --margin 0.01 is too small: no --max-rounds from 20 to 1000 can reach a decision within it under " \
                 "--decide's stopping rule (a look after every round from round 3, the 5% rate spent over the looks up to --max-rounds, " \
                 "a round's spread taken as at least 0.5%): give --margin 0.067 or more with --max-rounds 1000, or 0.42 or " \
                 "more with --max-rounds 20\n", err
    refute File.exist?(out_dir), "a refused run leaves no run directory"
    assert_equal spawned, Rackbench::ProcessControl::Registry.history.size, "a refused run starts no process"
  end

  def test_a_margin_that_needs_more_rounds_names_them
    status, _out, err = run_cli("run", "--decide", "--margin", "0.1", "-s", "puma x1:1", "-s", "puma x1:2",
                                "-o", File.join(tmpdir, "run"))
    assert_equal 2, status, err
    assert_match(/\AError: --max-rounds 20 cannot reach a decision within --margin 0\.1 .* give --max-rounds 398 or more\n\z/, err)
  end
end
