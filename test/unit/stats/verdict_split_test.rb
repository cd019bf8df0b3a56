# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/verdict"

# What the in-process probe's time split adds to a verdict: pool exhausted,
# GC-heavy, database-bound, and every verdict's split and threads line.
class VerdictSplitTest < Minitest::Test
  # puma x2:T on 2 cores, c = 16, Puma's stats read; split: the trial's "split".
  def trial(split:, threads: 5, server: 60.0, busy_threads: 16.0, backlog: 6.0, rps: 160.0, **extra)
    { "setup" => "puma x2:#{threads}", "endpoint" => "/articles", "loop" => "closed", "concurrency" => 16,
      "workers" => 2, "threads" => threads, "rps" => rps, "latency_ms" => { "mean" => 16_000.0 / rps },
      "error_rate" => 0.0, "processes" => { "worker_restarts" => 0 },
      "cpu" => { "server_pct" => server, "client_pct" => 2.0, "cores" => 2, "client_machine_share" => 0.01 },
      "machine" => { "cpu_pct" => server + 5.0, "rackbench_pct" => 3.0, "foreign_pct" => 0.0, "foreign_limit_pct" => 15.0 },
      "queues" => { "accept" => { "mean" => 0.0, "max" => 0 }, "waiting_mean" => backlog,
                    "server" => { "kind" => "puma", "busy_threads" => { "mean" => busy_threads }, "backlog" => { "mean" => backlog } } },
      "balance" => { "workers" => [{ "pid" => 1, "cpu_pct" => server / 2 }, { "pid" => 2, "cpu_pct" => server / 2 }],
                     "busiest_cpu_pct" => server / 2, "spread" => 1.02 },
      "split" => split }.merge(extra)
  end

  # Seed 001's shape: 9.8 ms CPU, 0.6 ms GC, 31 ms SQL of 50 ms.
  def db_page(**extra)
    { "requests" => 320, "wall_ms" => 50.0, "cpu_ms" => 9.8, "gc_ms" => 0.6, "waiting_ms" => 40.2, "sql_ms" => 31.0,
      "sql_per_request" => 3.0, "cpu_share" => 0.196, "threads_per_process" => 5.1, "cpu_method" => "thread" }.merge(extra)
  end

  def verdict(record) = Rackbench::Stats::Verdict.for(record)

  # puma x2:8 over a pool of 5: threads waited for a connection in 40% of the samples.
  def test_pool_exhausted
    pool = { "size" => 5, "busy_mean" => 5.0, "waiting_mean" => 2.4, "waiting_share" => 0.4, "samples" => 40 }
    v = verdict(trial(threads: 8, split: db_page("pool" => pool)))
    assert_equal "pool", v.kind, v.text
    assert_equal "pool exhausted", v.label
    assert_match(/2\.4 thread\(s\) waiting on average, in 40% of the pool's samples, with a pool of 5 for 8 thread\(s\) per process/, v.reason)
    calm = pool.merge("waiting_mean" => 0.0, "waiting_share" => 0.0)
    quiet = verdict(trial(threads: 8, split: db_page("pool" => calm)))
    refute_equal "pool", quiet.kind
    # Rails 7.2 on seed 001's page: a connection held only while a 0.1 ms query runs, so none waited.
    refute_match(/threads beyond 5 wait for one/, quiet.reason)
    assert_match(/the pool holds 5 connections, and no thread waited for one in its 40 samples/, quiet.reason)
  end

  # Every slot busy, CPU at 30%, SQL 62% of the wall time: the threads wait for the database.
  def test_database_bound
    v = verdict(trial(split: db_page))
    assert_equal "db", v.kind, v.text
    assert_equal "database-bound", v.label
    assert_match(/\ASQL took 31 ms of a request's 50 ms \(62%\) while every slot was busy/, v.reason)
    cpu_light = db_page("sql_ms" => 5.0)
    assert_equal "busy", verdict(trial(split: cpu_light)).kind, "SQL a tenth of the time: busy, not the database"
  end

  # CPU-bound with GC a third of the CPU.
  def test_gc_heavy
    split = db_page("cpu_ms" => 12.0, "gc_ms" => 4.0, "sql_ms" => 1.0, "wall_ms" => 13.0)
    v = verdict(trial(server: 190.0, split: split, backlog: 6.0))
    assert_equal "gc", v.kind, v.text
    assert_equal "GC-heavy", v.label
    assert_match(/\AGC took 4 ms of the 12 ms of CPU per request \(33%\) while CPU was the limit: the server used 190%/, v.reason)
    assert_equal "cpu", verdict(trial(server: 190.0, split: split.merge("gc_ms" => 0.6))).kind
  end

  # The default run's /hello at c = 8 (issue 34): the probe sees ~12 µs of
  # in-app CPU and a GC share of it over 100%, but a request costs the
  # server's processes 190% / 10,000 req/s = 190 µs: GC is 8% of that.
  def test_gc_is_a_share_of_the_process_cpu_per_request_and_small_figures_are_in_microseconds
    hello = { "requests" => 20_000, "wall_ms" => 0.3, "cpu_ms" => 0.012, "gc_ms" => 0.0145, "waiting_ms" => 0.288,
              "cpu_share" => 0.04, "threads_per_process" => 25.0, "cpu_method" => "thread" }
    v = verdict(trial(server: 190.0, rps: 10_000.0, split: hello))
    refute_equal "gc", v.kind, v.text
    assert_match(/per request: 12 µs CPU \(15 µs GC\), 0\.3 ms waiting \(IO, sleep, the GVL or a CPU.s run queue\), of 0\.3 ms \(the server's processes: 0\.2 ms of CPU per request\)/, v.reason)
    refute_match(/\b0 ms\b/, v.reason)

    heavy = verdict(trial(server: 190.0, rps: 10_000.0, split: hello.merge("gc_ms" => 0.08)))
    assert_equal "gc", heavy.kind, heavy.text
    assert_match(/\AGC took 80 µs of the 0\.2 ms of CPU per request \(42%\)/, heavy.reason)
  end

  # Every verdict says where the time went and the threads it predicts beside the setup's.
  def test_the_split_and_the_threads_line
    v = verdict(trial(split: db_page))
    assert_match(/; per request: 9\.8 ms CPU \(0\.6 ms GC\), 31 ms SQL, 9\.2 ms other waiting \(IO, sleep, the GVL or a CPU.s run queue\), of 50 ms; /, v.reason)
    assert_match(/threads: CPU is 20% of a request's time, so one process's GVL saturates near 5\.1 threads \(1\/f\); this setup runs 5 per process \(about that\)\z/, v.reason)
    assert_equal 31.0, v.evidence.dig("split", "sql_ms")
    two = verdict(trial(threads: 2, split: db_page("sql_ms" => 1.0)))
    assert_match(/this setup runs 2 per process \(fewer: its GVL waits idle while they wait\)\z/, two.reason)
    viewed = verdict(trial(split: db_page("view_ms" => 12.0)))
    assert_match(/31 ms SQL, 12 ms in views \(SQL a view runs counts in both\), 9\.2 ms other waiting/, viewed.reason)
    plain = verdict(trial(split: db_page.reject { |k, _| k.start_with?("sql") }))
    assert_match(/per request: 9\.8 ms CPU \(0\.6 ms GC\), 40\.2 ms waiting \(IO, sleep, the GVL or a CPU.s run queue\), of 50 ms/, plain.reason)
    unknown = verdict(trial(split: { "unknown" => "the probe counted no request (no file, or every worker restarted)" }))
    assert_match(/; time split unknown: the probe counted no request/, unknown.reason)
    assert_nil unknown.evidence["split"]
  end

  # Unicorn on a Roda/SQLite page with no IO (issue 34): CPU-bound, yet the
  # split's "waiting" (wall less CPU) was time runnable without a CPU, and the
  # threads line had advised "more threads, or processes, would overlap the waits".
  def test_waiting_for_a_cpu_is_told_from_io_and_the_advice_follows
    page = { "requests" => 400, "wall_ms" => 10.0, "cpu_ms" => 4.0, "gc_ms" => 0.2, "waiting_ms" => 6.0,
             "cpu_share" => 0.4, "threads_per_process" => 2.5, "cpu_method" => "thread" }
    measured = verdict(trial(threads: 1, server: 190.0, rps: 160.0, split: page.merge("runq_ms" => 5.2)))
    assert_equal "cpu", measured.kind, measured.text
    assert_match(/, 6 ms waiting \(IO, sleep or the GVL; 5\.2 ms of it runnable, waiting for a CPU\), of 10 ms/, measured.reason)
    assert_match(/this setup runs 1 per process \(its waiting was mostly for a CPU, by the run queue: more threads would not overlap it\)\z/, measured.reason)
    assert_equal 5.2, measured.evidence.dig("split", "runq_ms")
    # /hello (a real default run): 29 µs a request on the run queue, more than the 1 µs
    # waited inside the app's call: the server's own work around it is in the threads' figure.
    hello = { "requests" => 20_000, "wall_ms" => 0.004, "cpu_ms" => 0.003, "gc_ms" => 0.005, "waiting_ms" => 0.001,
              "cpu_share" => 0.77, "threads_per_process" => 1.3, "cpu_method" => "thread", "runq_ms" => 0.029 }
    outside = verdict(trial(threads: 5, server: 110.0, rps: 15_000.0, split: hello))
    assert_match(/1 µs waiting \(IO, sleep or the GVL; the request threads waited 29 µs a request for a CPU, the server's own work around the app included\), of 4 µs/, outside.reason)
    refute_match(/29 µs of it/, outside.reason)
    # Rails on a crowded machine: the run queue's 2.5 ms can fall inside SQL's wall time too.
    rails = verdict(trial(split: db_page("runq_ms" => 2.5)))
    assert_match(/9\.2 ms other waiting \(IO, sleep or the GVL; 2\.5 ms of SQL and waiting was runnable, waiting for a CPU\)/, rails.reason)

    unmeasured = verdict(trial(threads: 1, server: 190.0, rps: 160.0, split: page))
    assert_match(/6 ms waiting \(IO, sleep, the GVL or a CPU's run queue\)/, unmeasured.reason)
    refute_match(/overlap the waits/, unmeasured.reason, "CPU is the limit: no more threads")
    assert_match(/\(CPU is the limit here, so its waiting may be for a CPU: more threads would not overlap it\)\z/, unmeasured.reason)
  end

  # puma x1:4 on a crowded 2-core machine (others took 121%): its process at
  # 58% of the 78% of a core it was left looked GVL-bound, but its 4 threads
  # with CPU 14% of a request's time keep a GVL busy at most 55% of the time;
  # they were all waiting on SQL.
  def test_threads_that_cannot_fill_the_gvl_are_not_gvl_bound
    crowded = { "cpu" => { "server_pct" => 58.0, "client_pct" => 1.0, "cores" => 2, "client_machine_share" => 0.005 },
                "machine" => { "cpu_pct" => 180.0, "rackbench_pct" => 5.0, "foreign_pct" => 116.0, "foreign_limit_pct" => 14.0 },
                "workers" => 1, "setup" => "puma x1:4" }
    split = db_page("wall_ms" => 37.2, "cpu_ms" => 5.1, "sql_ms" => 31.6, "cpu_share" => 0.137, "threads_per_process" => 7.3)
    record = trial(threads: 4, split: split, busy_threads: 16.0, backlog: 12.0, rps: 107.0, **crowded)
    record["balance"] = { "workers" => [{ "pid" => 1, "cpu_pct" => 58.0 }], "busiest_cpu_pct" => 58.0 }
    v = verdict(record)
    assert_equal "db", v.kind, v.text
    assert_match(/this setup runs 4 per process \(fewer: its GVL waits idle while they wait\)\z/, v.reason)
    no_split = verdict(record.merge("split" => nil))
    assert_equal "gvl", no_split.kind, "without the split the figures alone read GVL-bound"
  end
end
