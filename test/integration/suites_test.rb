# frozen_string_literal: true

require "test_helper"
require "json"
require "etc"
require "rackbench/suites"

# rackbench run --suite: a real quick suite (nginx: Thin and Unicorn, alone
# and behind nginx), shortened from the command line, with its findings.
class SuiteRunIntegrationTest < Minitest::Test
  def test_the_nginx_quick_suite_stores_every_setup_and_prints_its_findings
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "--suite", "nginx", "--quick", "-d", "1", "--warmup", "0", "-o", dir)
    assert_equal 0, status, err
    meta = JSON.parse(File.read(File.join(dir, "meta.json")))
    assert_equal "nginx", meta["suite"]
    assert_in_delta 1.0, meta.dig("plan", "duration_s"), 1e-9, "the command line wins over the suite"
    assert_equal [10, 100], meta.dig("plan", "concurrency"), "the suite's quick levels"
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    expected = Rackbench::Suites.settings("nginx", cores: Etc.nprocessors, quick: true)[:setups]
    assert_equal expected.sort, trials.map { |t| t["setup"] }.uniq.sort
    expected.each do |setup|
      mine = trials.select { |t| t["setup"] == setup }
      assert_equal 6, mine.size, "#{setup}: 3 endpoints x 2 levels"
      assert(mine.select { |t| t["endpoint"] == "/hello" }.all? { |t| t["requests"].positive? }, "#{setup} answered /hello")
    end
    assert_match(/^Findings of suite nginx \(seed 004: /, out)
    assert_match(/^  - thin behind nginx vs thin: \/hello \S+ vs \S+ req\/s at c=100 /, out)
    assert_match(/^  - unicorn x\d+ behind nginx vs unicorn x\d+: /, out)
  end

  # The 2026 field, cut to one endpoint: every server of it boots and
  # answers, and the findings name a leader and Thruster against Puma alone.
  def test_the_field_2026_quick_suite_runs_every_server
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "--suite", "field-2026", "--quick", "-e", "/hello", "-d", "1", "--warmup", "0",
                               "-o", dir)
    assert_equal 0, status, err
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    expected = Rackbench::Suites.settings("field-2026", cores: Etc.nprocessors, quick: true)[:setups]
    assert_equal expected.sort, trials.map { |t| t["setup"] }.sort, "one trial each at c=16"
    trials.each { |t| assert_operator t["requests"], :>, 100, "#{t['setup']} answered /hello" }
    assert_match(%r{^Findings of suite field-2026 \(new: the 2026 field}, out)
    assert_match(%r{^  - /hello at c=16: }, out)
    assert_match(%r{^  - puma x\d+:5 behind thruster vs puma x\d+:5: /hello \S+ vs \S+ req/s at c=16 }, out)
  end
end
