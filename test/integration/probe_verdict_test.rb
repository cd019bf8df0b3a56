# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/stats/verdict"
require "rackbench/sampling/noise"

# The split in real runs (issue 26, item 2), on an app shaped like a
# database page with no database: 5 ms of CPU, then a 30 ms query holding
# one of a pool of 5 connections (test/fixtures/apps/fake_db: stand-ins of
# ActiveSupport::Notifications and Active Record's pool, read by the probe
# exactly as the real ones are).
class ProbeVerdictTest < Minitest::Test
  APP = File.expand_path("../fixtures/apps/fake_db", __dir__)

  def run_fake_db(setup)
    quiet_measurement do
      require_tool!("wrk")
      dir = File.join(tmpdir, "run")
      status, _out, err = run_cli("run", "--app", APP, "--probe", "-s", setup, "-e", "/", "-c", "16", "-d", "2",
                                  "--warmup", "1", "-o", dir)
      assert_equal 0, status, err
      [File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }.first, err]
    end
  end

  def verdict_of(record)
    v = Rackbench::Stats::Verdict.for(record)
    skip "machine crowded by other processes: #{v.reason}" if v.kind == "unknown" && v.reason.include?("other processes used")
    v
  end

  # 8 threads over 5 connections: warned before measuring, "pool exhausted" after.
  def test_threads_above_the_pool
    record, err = run_fake_db("puma x1:8")
    assert_match(/^warning: puma x1:8: 8 threads per process \(the setup's label\) share an Active Record pool of 5 connections/, err)
    pool = record.dig("split", "pool")
    assert_equal 5, pool["size"]
    assert_operator pool["waiting_mean"], :>, 0, pool.inspect
    v = verdict_of(record)
    assert_equal "pool", v.kind, v.text
    # The query's 30 ms and the wait for the GVL after it (34 measured); its
    # wait for a connection, about 13 ms here (8 threads at the pool's 166
    # req/s, 48 ms a request), is outside it: 43 if it were in.
    sql = record.dig("split", "sql_ms")
    assert_operator sql, :>=, 29.5, "the query's 30 ms"
    assert_operator sql, :<, 40.0, "the query's 30 ms (its wait for a connection is outside it)"
    assert_in_delta 5.0, record.dig("split", "cpu_ms"), 1.0
    assert_match(/but the pool holds 5 connections: threads beyond 5 wait for one\z/, v.reason)
  end

  # 4 threads, all busy, 12 requests queued, SQL most of each request: database-bound.
  def test_threads_within_the_pool_wait_for_the_database
    record, err = run_fake_db("puma x1:4")
    refute_match(/Active Record pool/, err)
    v = verdict_of(record)
    # 4 threads at f = 0.14 use about 55% of a core: a machine whose other
    # processes leave the server less than that makes CPU the limit, rightly.
    if v.kind == "cpu" && Rackbench::Sampling::Noise.foreign?(record)
      skip "other processes left the server too little CPU to see the database: #{v.reason}"
    end
    assert_equal "db", v.kind, v.text
    assert_match(/\ASQL took \d+(\.\d)? ms of a request's \d+(\.\d)? ms \(\d+%\) while every slot was busy/, v.reason)
  end
end
