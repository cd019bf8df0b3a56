# frozen_string_literal: true

require "test_helper"
require "json"

# --scenario: every request picks its path by weight, in closed and open loop.
class ScenarioIntegrationTest < Minitest::Test
  def app_counting_paths(log)
    dir = tmpdir
    File.write(File.join(dir, "config.ru"), <<~RUBY)
      log = File.open(#{log.inspect}, "a")
      log.sync = true
      run ->(env) { log.write(env["PATH_INFO"] + "\\n"); [200, { "content-type" => "text/plain", "content-length" => "2" }, ["ok"]] }
    RUBY
    File.join(dir, "config.ru")
  end

  def shares(log)
    paths = File.readlines(log, chomp: true)
    paths.tally.transform_values { |n| n.to_f / paths.size }
  end

  # Paths are drawn at random: at 500 req/s for 1 s the share of /a has a
  # standard deviation of 0.019, so +-0.08 is over 4 of them (the closed
  # loop draws thousands).
  def test_closed_and_open_loop_follow_the_weights
    [%w[-c 4], %w[--rate 500]].each do |level|
      log = File.join(tmpdir, "paths.log")
      status, out, err = run_cli("run", "--app", app_counting_paths(log), "-s", "puma x1:4", "--scenario", "/a:3,/b:1",
                                 *level, "-d", "1", "--warmup", "0", "-q", "-o", File.join(tmpdir, "run"))
      assert_equal 0, status, err
      share = shares(log)
      assert_in_delta 0.75, share["/a"], 0.08, "#{level.first}: /a has weight 3 of 4 (#{share})"
      assert_in_delta 0.25, share["/b"], 0.08
      assert_match(%r{^/a:3,/b:1 }, out)
    end
  end

  def test_bad_scenarios
    { ["--scenario", "a:3"] => %(Error: --scenario "a:3": "a:3" must be PATH or PATH:WEIGHT with PATH starting with /\n),
      ["--scenario", "/a:0"] => %(Error: --scenario "/a:0": the weight of /a must be above 0 (got 0)\n),
      ["--scenario", "/a", "-e", "/b"] => "Error: give --endpoint or --scenario, not both\n" }.each do |args, line|
      status, _out, err = run_cli("run", "-s", "thin", *args)
      assert_equal [2, line], [status, err], "each bad scenario names its own fault"
    end
  end
end
