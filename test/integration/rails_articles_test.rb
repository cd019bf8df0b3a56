# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/stats/verdict"

# Seed 001's page in the built-in Rails workload: /articles renders the 10
# articles bin/setup seeded into SQLite (apps/rails/db/seeds.rb). With the
# probe on (issue 26, item 3): the terminal prints where a request's time
# went, SQL included; --why words the verdict with those numbers; the JSON
# report carries the split per cell. puma x2:8 has more threads than the
# pool's 5 connections: warned before measuring. Rails 7.2 holds a
# connection only while a query runs, so with SQLite's 0.1-0.2 ms queries
# no thread waits for one, and the verdict says so rather than "pool exhausted".
class RailsArticlesTest < Minitest::Test
  def test_the_articles_page_under_the_probe
    require_tool!("wrk")
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "--app", "rails", "-e", "/articles", "--probe", "-s", "puma x2:8", "-c", "16",
                               "-d", "2", "--warmup", "1", "-o", dir)
    assert_equal 0, status, err
    assert_match(/^warning: puma x2:8: 8 threads per process .* pool of 5 connections .* requests may wait for a connection/, err)
    trial = JSON.parse(File.readlines(File.join(dir, "trials.jsonl")).first)
    assert trial["verified"], "seed 001's 10 rows checked"
    row = out.lines.find { |l| l.start_with?("/articles c=16 puma x2:8") }
    refute_nil row, out
    cells = row.split.drop(4)
    cpu, gc, sql, views, waiting, wall, threads = cells.map(&:to_f)
    assert_operator sql, :>, 0, row
    assert_operator views, :>, 0, row
    assert_operator cpu, :>, sql, "the page's time is Ruby's, not SQLite's: #{row}"
    # Each figure is rounded as printed (SplitTable#ms: whole ms from 10 on,
    # 0.1 ms below): the sum agrees within the three roundings.
    rounding = cells.values_at(0, 4, 5).sum { |c| c.include?(".") ? 0.5 * 10**-c.split(".").last.size : 0.5 }
    assert_in_delta wall, cpu + waiting, rounding + 1e-9, row
    assert_operator gc, :<=, cpu
    assert_operator threads, :>=, 1.0

    status, why, = run_cli("report", dir, "--why")
    assert_equal 0, status
    reason = why.lines.find { |l| l.include?("/articles c=16 puma x2:8:") }
    assert_match(/per request: [\d.]+ (?:ms|µs) CPU \([\d.]+ (?:ms|µs) GC\), [\d.]+ (?:ms|µs) SQL, [\d.]+ (?:ms|µs) in views/, reason)
    assert_match(/one process's GVL saturates near [\d.]+ threads/, reason)
    pool = trial.dig("split", "pool")
    # The words follow the pool's own samples: none waited (as measured here: 0 of 27 samples), some
    # waited, or enough waited that the pool is the limit (Verdict's "pool" kind).
    if pool["waiting_mean"].to_f.zero?
      assert_match(/the pool holds 5 connections, and no thread waited for one in its #{pool['samples']} samples/, reason)
    elsif Rackbench::Stats::Verdict.for(trial).kind == "pool"
      assert_match(/requests waited for an Active Record connection: [\d.]+ thread\(s\) waiting on average, .* with a pool of 5/, reason)
    else
      assert_match(/but the pool holds 5 connections: threads beyond 5 wait for one/, reason)
    end

    status, json, = run_cli("report", dir, "--format", "json")
    assert_equal 0, status
    cell = JSON.parse(json)["cells"].find { |c| c["endpoint"] == "/articles" }
    assert_operator cell.dig("split", "sql_ms"), :>, 0, cell["split"].inspect
    assert_equal 5, cell.dig("split", "pool", "size")
  end
end
