# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/verdict"

# The cases of issue 26 that the verdict rules got wrong, each rebuilt from
# the evidence figures of the trials that showed it (per-process CPU, cores,
# in flight, slots, balance): a 16-core machine, Thin's one event loop, a
# cell whose trials disagreed, Puma's workers splitting their connections,
# "other processes" on an idle machine, and the open loop.
class VerdictEvidenceTest < Minitest::Test
  # A trial record as the runner stores it. worker_cpu: each worker's CPU;
  # shares: each worker's share of the requests (nil: not counted).
  def trial(cores:, workers:, worker_cpu:, c: 16, threads: 1, rps: 100.0, mean: nil, client: 2.0, rackbench: 3.0,
            foreign: 0.0, limit: nil, accept: 0.0, busy_threads: nil, backlog: nil, shares: nil, **extra)
    server = worker_cpu.sum
    limit ||= 10.0 + (2 * cores + workers + 1) / 2.0
    balance = worker_cpu.each_with_index.map { |cpu, i| { "pid" => 100 + i, "cpu_pct" => cpu } }
    shares&.each_with_index { |s, i| balance[i]["requests_share"] = s }
    puma = busy_threads && { "kind" => "puma", "busy_threads" => { "mean" => busy_threads }, "backlog" => { "mean" => backlog.to_f } }
    { "setup" => "s", "endpoint" => "/x", "loop" => "closed", "concurrency" => c, "workers" => workers,
      "threads" => threads, "rps" => rps, "latency_ms" => { "mean" => mean || 1000.0 * c / rps }, "error_rate" => 0.0,
      "processes" => { "worker_restarts" => 0 },
      "cpu" => { "server_pct" => server, "client_pct" => client, "cores" => cores,
                 "client_machine_share" => client / (100.0 * cores) },
      "machine" => { "cpu_pct" => server + client + rackbench + foreign, "rackbench_pct" => rackbench, "steal_pct" => 0.0,
                     "foreign_pct" => foreign, "foreign_limit_pct" => limit },
      "queues" => { "accept" => { "mean" => accept, "max" => accept.ceil }, "waiting_mean" => accept + backlog.to_f,
                    "server" => puma || { "unknown" => "no stats" } },
      "balance" => { "workers" => balance, "busiest_cpu_pct" => worker_cpu.max,
                     "spread" => shares && (shares.max * shares.size).round(2) } }.merge(extra)
  end

  def verdict(record)
    Rackbench::Stats::Verdict.for(record)
  end

  # Unicorn x8 on /fibonacci/25, a quiet 16-core machine: 797 req/s, every
  # worker at a core (800%). It was "8 of 8 workers busy while CPU is not the limit".
  def test_each_worker_at_a_core_with_idle_cores_is_cpu_bound_per_process
    record = trial(cores: 16, workers: 8, worker_cpu: [99.0, 100.0, 100.0, 100.0, 99.5, 100.0, 100.0, 100.0],
                   rps: 797.0, accept: 8.0, client: 6.0)
    v = verdict(record)
    assert_equal "process_cpu", v.kind, v.text
    assert_equal "CPU-bound per process", v.label
    assert_match(/each of its 8 processes used 99%-100% of one core, all one single-threaded process can use, while 7\.9 core\(s\) .* stayed idle: more processes would use them/, v.reason)
    two = trial(cores: 2, workers: 2, worker_cpu: [97.0, 98.0], rps: 196.0, accept: 14.0)
    assert_equal "cpu", verdict(two).kind, "two workers on two cores: the machine's CPU is the limit"
  end

  # Thin at 96% of its one core on 2 cores: it was "CPU is not the limit".
  def test_thins_one_event_loop_at_a_core
    v = verdict(trial(cores: 2, workers: 1, worker_cpu: [96.0], rps: 95.0, accept: 15.0, "setup" => "thin"))
    assert_equal "process_cpu", v.kind, v.text
    assert_match(/its one process used 96% of one core, all one single-threaded process can use, while 1 core\(s\) of the CPU left to it stayed idle/, v.reason)
  end

  # puma x2:5 on /fibonacci/25 at c=8, 16 cores, both processes at 94-100%:
  # "GVL-bound" in 4 runs, "below capacity" in 4 others, by Puma's busy
  # threads, which each worker reports at its check-in (a stale reading of
  # 0.5 made 0.25 requests per process).
  def test_one_cells_evidence_gets_one_verdict_whichever_trial_is_read
    fresh = trial(cores: 16, workers: 2, threads: 5, c: 8, worker_cpu: [94.0, 100.0], rps: 78.0, busy_threads: 8.0, backlog: 0.0)
    stale = trial(cores: 16, workers: 2, threads: 5, c: 8, worker_cpu: [96.0, 99.0], rps: 77.0, busy_threads: 0.5, backlog: 0.0)
    assert_equal %w[gvl gvl], [verdict(fresh).kind, verdict(stale).kind], verdict(stale).text
    assert_match(/its busiest process used 99% of one core with 4 requests in flight for its 5 threads/, verdict(stale).reason)

    under = trial(cores: 16, workers: 2, threads: 5, c: 8, worker_cpu: [20.0, 21.0], rps: 70.0, busy_threads: 3.0, backlog: 0.0)
    forward = Rackbench::Stats::Verdict.for_cell([under, fresh])
    backward = Rackbench::Stats::Verdict.for_cell([fresh, under])
    assert_equal forward.to_h, backward.to_h, "the order the trials are read in decides nothing"
    assert_equal "gvl", forward.kind, "a tie goes to the rule tried first"
    assert_match(/\[1 of 2 trials; the others: below capacity 1\]\z/, forward.reason)
    three = Rackbench::Stats::Verdict.for_cell([stale, under, fresh])
    assert_equal three.to_h, Rackbench::Stats::Verdict.for_cell([fresh, stale, under]).to_h
    assert_match(/with 4 requests in flight/, three.reason, "told by the median gvl trial")
  end

  # Puma x2:5 on /pause/0.05 at c=16: 127 req/s against ~195, in trials
  # whose balance shows the workers' keep-alive connections split unevenly:
  # one worker served 75% (its 5 threads full, 6 requests in its backlog),
  # the other 25% with threads idle.
  def test_an_uneven_split_over_workers_is_named
    uneven = { cores: 2, workers: 2, threads: 5, worker_cpu: [7.0, 4.0], rps: 127.0, busy_threads: 12.4, backlog: 6.0 }
    v = verdict(trial(**uneven, shares: [0.75, 0.25]))
    assert_equal "unbalanced", v.kind, v.text
    assert_match(/requests split 75%:25% over 2 workers \(the busiest served 1\.5x an even share; a keep-alive split: each of the 16 connections stays on the worker that accepted it\) while 6 waiting on average/, v.reason)
    assert_match(/6\.4 of 10 threads busy \(idle slots bound it at 198\.4 req\/s\): an even split would serve about 190\.5 req\/s/, v.reason)
    assert_equal "busy", verdict(trial(**uneven, shares: [0.51, 0.49])).kind, "an even split explains nothing"
    assert_equal "busy", verdict(trial(**uneven, busy_threads: 16.0, shares: [0.75, 0.25])).kind,
                 "every slot busy: the split left none idle"
  end

  # puma x8:8 at c = 64 on 16 cores (issue 34): /pause/0.05 at 1152 req/s,
  # 10% below the 1280 its 64 threads serve, its workers' keep-alive
  # connections split 18%:...:10%. Nothing queued in the kernel and no worker
  # near a core, so not "unbalanced"; the cell read "threads busy" and the
  # split that cost the 10% went unnamed.
  def test_a_keep_alive_split_too_small_to_be_the_verdict_is_named_beside_it
    shares = [0.18, 0.16, 0.13, 0.12, 0.11, 0.105, 0.105, 0.10]
    x8 = { cores: 16, workers: 8, threads: 8, c: 64, worker_cpu: [30.0] * 8, rps: 1152.0, busy_threads: 64.0, backlog: 6.4 }
    v = verdict(trial(**x8, shares: shares))
    assert_equal "busy", v.kind, v.text
    assert_match(/; a keep-alive split: each of the 64 connections stays on the worker that accepted it, and the workers served 18% to 10% of the requests \(about 11\.5 to 6\.4 connections each for 8 threads\): about 5\.4 of 64 threads had no request while 6\.1 requests waited in busier workers; an even split would serve about 1259 req\/s \(9% more\)\z/, v.reason)
    even = verdict(trial(**x8, shares: [0.13, 0.13, 0.125, 0.125, 0.125, 0.125, 0.12, 0.12]))
    refute_match(/keep-alive/, even.reason, "a split within 5% of the threads is the connections' noise")
    unicorn = verdict(trial(**x8, threads: 1, workers: 8, c: 16, shares: shares))
    refute_match(/keep-alive/, unicorn.reason, "single-threaded workers: no threads left idle by the split")
  end

  # puma x2:5 at c = 1 (issue 34): one keep-alive connection, so one worker
  # served all 502 req/s; "an even split would serve about 989 req/s" cannot
  # be, since one sequential connection is all there is.
  def test_one_connection_on_one_worker_is_not_unbalanced
    c1 = verdict(trial(cores: 2, workers: 2, threads: 5, worker_cpu: [95.0, 1.0], c: 1, rps: 502.0, shares: [0.99, 0.01]))
    refute_equal "unbalanced", c1.kind, c1.text
    refute_match(/even split/, c1.reason)
    c8 = verdict(trial(cores: 2, workers: 2, threads: 5, worker_cpu: [95.0, 1.0], c: 8, rps: 502.0, shares: [0.99, 0.01]))
    assert_equal "unbalanced", c8.kind, "eight connections on one worker: the split held it"
  end

  # An idle 2-vCPU machine listed "other processes" at 8-22% in every
  # verdict: rackbench's own CPU and a figure from another window. With the
  # sampler's same-window figure (3%) under its limit, none are named.
  def test_other_processes_named_only_above_their_limit
    quiet = verdict(trial(cores: 2, workers: 2, worker_cpu: [97.0, 98.0], rackbench: 9.0, foreign: 3.0, limit: 14.5, accept: 14.0))
    refute_match(/other processes/, quiet.reason)
    assert_equal 3.0, quiet.evidence["other_cpu_pct"]
    # 16 cores: 20% is within the 31% limit (10% + (2 x 16 + 10) / 2 s).
    big = trial(cores: 16, workers: 8, worker_cpu: [100.0] * 8, foreign: 20.0, limit: 31.0, accept: 8.0, rps: 797.0)
    refute_match(/other processes/, verdict(big).reason)
    busy = verdict(trial(cores: 2, workers: 2, worker_cpu: [60.0, 60.0], foreign: 45.0, limit: 14.5, accept: 14.0))
    assert_match(/other processes 45%/, busy.reason, "above its limit it is named")
  end

  # capacity's open loop: unicorn x2 at 150 req/s offered, 162% of 200% CPU;
  # in_flight (unanswered when wrk stopped) was 0 and read as the mean, so
  # the verdict said "0 of 2 workers busy while CPU is not the limit".
  def test_open_loop_in_flight_from_littles_law
    record = trial(cores: 2, workers: 2, worker_cpu: [80.0, 82.0], rps: 149.0, mean: 31.0, client: 8.0, accept: 1.2,
                   "loop" => "open", "concurrency" => nil, "rate" => 150.0, "target_rate" => 150.0, "in_flight" => 0,
                   "service_ms" => { "mean" => 28.0 }, "valid" => true)
    v = verdict(record)
    assert_equal "cpu", v.kind, v.text
    assert_in_delta 149.0 * 0.028, v.evidence["in_flight"], 0.01
  end

  # An open-loop trial the server could not keep up with was "load
  # generator: ... the server fell behind" at 234 req/s.
  def test_a_server_that_fell_behind_is_not_the_load_generator
    open = { "loop" => "open", "concurrency" => nil, "rate" => 300.0, "target_rate" => 300.0, "in_flight" => 41,
             "service_ms" => { "mean" => 180.0 }, "valid" => false,
             "invalid_reason" => "the server fell behind: it answered 226.0 req/s over the second half of the trial against 300 offered" }
    record = trial(cores: 2, workers: 2, worker_cpu: [97.0, 98.0], rps: 234.0, mean: 900.0, accept: 30.0, **open)
    v = verdict(record)
    assert_equal "behind", v.kind, v.text
    assert_equal "server fell behind", v.label
    assert_match(/\Athe server answered 234 of 300 req\/s offered, with 42\.1 request\(s\) in flight on average .*in the server: CPU-bound: /, v.reason)
    assert_equal "behind", verdict(record.merge("behind" => "server")).kind
    lag = record.merge("behind" => "client", "invalid_reason" => "the load generator fell behind its schedule: ...")
    assert_equal "client", verdict(lag).kind, "the client's own schedule slip still blames the client"
    assert_equal "behind", verdict(record.merge("behind" => "both")).kind, "both fell behind: the server's too"
    fast = verdict(record.merge("service_ms" => { "mean" => 0.05 }))
    assert_match(/Little's law: 234 req\/s x 50 µs\)/, fast.reason, "below 0.1 ms in µs, not \"0.1 ms\" or \"0 ms\"")
  end
end
