# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/stats/verdict"

# A cell whose requests got 500s says what the app raised, in the app's own
# words from the server's log (Runner::AppError), not only "status N".
class AppErrorIntegrationTest < Minitest::Test
  APP = File.expand_path("../fixtures/apps/flaky", __dir__)

  def test_the_apps_exception_is_quoted_for_its_server_errors
    require_tool!("wrk")
    dir = File.join(tmpdir, "run")
    _status, _out, err = run_cli("run", "--app", APP, "-s", "puma x1:1", "-e", "/", "-c", "2", "-d", "1", "--warmup", "0",
                                 "-q", "-o", dir)
    trial = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }.first
    refute_nil trial, err
    assert_operator trial.dig("errors", "status").to_i, :>, 10, trial["errors"].inspect
    assert_match(/NoMethodError.*result_status/, trial["app_error"].to_s, "the log's line for the 500s")
    reason = Rackbench::Stats::Verdict.for(trial).reason
    assert_match(/of requests failed \(status \d+\); the app raised: .*NoMethodError/, reason)
  end
end
