# frozen_string_literal: true

require "test_helper"

# rackbench tune's command line: bad input is one line, exit 2, before anything boots.
class TuneCliTest < Minitest::Test
  def assert_usage(pattern, *argv)
    status, out, err = run_cli("tune", *argv)
    assert_equal 2, status, err
    assert_empty out
    assert_equal 1, err.lines.size, err
    assert_match(pattern, err)
  end

  def test_memory_budget_is_required_and_checked
    assert_usage(/\AError: give the memory the app may use with --memory-budget, e\.g\. --memory-budget 2GiB\n\z/)
    assert_usage(/--memory-budget "2 gigs": write 2GiB, 512MiB, 2G or 1500M \(binary units: G = GiB = 2\^30 bytes\)/,
                 "--memory-budget", "2 gigs")
  end

  def test_the_latency_objective_is_required
    assert_usage(/give the latency objective with --slo-p99/, "--memory-budget", "1G")
  end

  def test_one_endpoint_per_tune
    assert_usage(%r{tune searches one endpoint at a time \(got /a, /b\): run rackbench tune once per endpoint, or load them together as one workload with --scenario "/a:1,/b:1"},
                 "--memory-budget", "1G", "--slo-p99", "500ms", "-e", "/a", "-e", "/b")
  end

  def test_servers_slo_and_time_budget
    assert_usage(/--servers "puma,unicron": unknown server "unicron" \(did you mean "unicorn"\?\); accepted: puma, unicorn, thin/,
                 "--memory-budget", "1G", "--servers", "puma,unicron")
    assert_usage(/--slo-p99 "fast": write 500ms, 0.5s or 500/, "--memory-budget", "1G", "--slo-p99", "fast")
    assert_usage(/--time-budget "5s": write a duration of at least 10 s/, "--memory-budget", "1G", "--time-budget", "5s")
    assert_usage(/--max-errors "lots"/, "--memory-budget", "1G", "--max-errors", "lots")
    assert_usage(/--max-workers must be a whole number from 1 to 256 \(got "0"\)/, "--memory-budget", "1G", "--max-workers", "0")
    assert_usage(/--puma-threads "0,5"/, "--memory-budget", "1G", "--puma-threads", "0,5")
    assert_usage(/unknown option --setup .*rackbench tune --help/, "--memory-budget", "1G", "--setup", "puma x2")
  end

  # The finalists' decisions take the run's margin and seed.
  def test_margin_and_seed
    ok = ["--memory-budget", "1G", "--slo-p99", "500ms"]
    assert_usage(/--margin must be a percentage above 0 and below 100, e\.g\. 5 for \+-5% \(got 0%\)/, *ok, "--margin", "0")
    assert_usage(/--margin must be a percentage above 0 and below 100/, *ok, "--margin", "100")
    assert_usage(/--seed must be a whole number >= 0 \(got "x"\)/, *ok, "--seed", "x")
    _, out, = run_cli("tune", "--help")
    assert_match(/--margin PERCENT +equivalence margin of the decisions between setups/, out)
    assert_match(/--seed N +random seed of the rounds' setup orders/, out)
  end

  def test_help_and_listing
    status, out, = run_cli("tune", "--help")
    assert_equal 0, status
    assert_match(/--memory-budget SIZE/, out)
    assert_match(/successive halving/, out)
    _, usage, = run_cli("--help")
    assert_match(/^  tune +find the best server x workers x threads/, usage)
  end
end
