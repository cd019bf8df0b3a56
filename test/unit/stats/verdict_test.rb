# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/verdict"

# Each rule of Stats::Verdict on a trial record built like the runner's.
class VerdictTest < Minitest::Test
  def trial(c: 16, workers: 2, threads: 1, rps: 40.0, mean: 380.0, server: 5.0, client: 1.0, machine: nil,
            busiest: 2.5, waiting: 14.0, busy_threads: nil, backlog: nil, **extra)
    queues = { "accept" => { "mean" => waiting - backlog.to_f, "max" => waiting.ceil }, "waiting_mean" => waiting,
               "server" => if busy_threads
                             { "kind" => "puma", "busy_threads" => { "mean" => busy_threads }, "backlog" => { "mean" => backlog.to_f } }
                           else
                             { "unknown" => "no stats" }
                           end }
    { "setup" => "s", "endpoint" => "/x", "loop" => "closed", "concurrency" => c, "workers" => workers, "threads" => threads,
      "rps" => rps, "latency_ms" => { "mean" => mean }, "error_rate" => 0.0, "processes" => { "worker_restarts" => 0 },
      "cpu" => { "server_pct" => server, "client_pct" => client, "cores" => 2, "client_machine_share" => client / 200.0 },
      "machine" => { "cpu_pct" => machine || (server + client + 2) },
      "queues" => queues, "balance" => { "workers" => Array.new(workers) { { "cpu_pct" => busiest } }, "busiest_cpu_pct" => busiest } }.merge(extra)
  end

  def verdict(record)
    Rackbench::Stats::Verdict.for(record)
  end

  def test_workers_busy_when_the_accept_queue_holds_the_rest
    v = verdict(trial)
    assert_equal "busy", v.kind, v.text
    assert_equal "workers busy", v.label
    assert_match(/14 waiting on average/, v.reason)
    assert_match(/2 of 2 workers busy/, v.reason)
  end

  def test_threads_busy_from_puma_backlog
    v = verdict(trial(workers: 2, threads: 5, waiting: 6.0, backlog: 6.0, busy_threads: 16.0, rps: 200, mean: 80))
    assert_equal "threads busy", v.label, v.text
    assert_match(/10 of 10 threads busy/, v.reason)
  end

  def test_cpu_bound_against_what_the_machine_left
    v = verdict(trial(threads: 5, server: 120.0, client: 5.0, machine: 200.0, busiest: 60.0, waiting: 6.0))
    assert_equal "cpu", v.kind, v.text
    assert_match(/120% of the 120% CPU left to it.*other processes 75%/, v.reason)
  end

  # --cpus server=0,client=1: the server's CPU is its one CPU, not the machine's two. Two workers at 100%
  # of it are CPU-bound, not "below capacity" (a walk of issue 37 on puma x2:5 read "below" at c = 8).
  def test_a_pinned_server_is_cpu_bound_at_its_own_cpus
    pinned = { "cpus" => { "server" => "0", "client" => "1", "rule" => "server=0,client=1", "shared" => false } }
    at = { c: 8, workers: 2, threads: 5, server: 99.0, client: 1.0, machine: 102.0, busiest: 50.0, waiting: 0.0 }
    v = verdict(trial(**at, **pinned))
    assert_equal "cpu", v.kind, v.text
    assert_match(/99% of the 100% CPU left to it/, v.reason)
    refute_equal "cpu", verdict(trial(**at)).kind, "shared, the machine's second core was idle"
    two = { "cpus" => { "server" => "0-1", "client" => "2", "shared" => false }, "cpu" => { "server_pct" => 99.0, "client_pct" => 1.0, "cores" => 3 } }
    refute_equal "cpu", verdict(trial(**at, **two)).kind, "pinned to two CPUs, one core of them idle"
  end

  def test_gvl_bound_one_process_at_one_core_with_a_core_idle
    v = verdict(trial(c: 8, workers: 1, threads: 5, server: 97.0, busiest: 97.0, waiting: 3.0, backlog: 3.0, busy_threads: 8.0))
    assert_equal "gvl", v.kind, v.text
    refute_equal "gvl", verdict(trial(c: 8, workers: 1, threads: 1, server: 97.0, busiest: 97.0, waiting: 7.0)).kind,
                 "one thread per process: no GVL to wait for"
    refute_equal "gvl", verdict(trial(c: 1, workers: 1, threads: 5, server: 97.0, busiest: 97.0, waiting: 0.0)).kind,
                 "one request in flight cannot wait for the GVL"
  end

  def test_no_gvl_on_jruby_or_above_one_core
    gvl_like = { c: 16, workers: 1, threads: 16, waiting: 3.0, backlog: 3.0, busy_threads: 9.0 }
    refute_equal "gvl", verdict(trial(**gvl_like, server: 100.0, busiest: 100.0, "setup" => "puma x1:16 on jruby")).kind,
                 "JRuby has no GVL (a run from before trials said their runtime: the label)"
    refute_equal "gvl", verdict(trial(**gvl_like, server: 100.0, busiest: 100.0, "setup_runtime" => "jruby")).kind,
                 "JRuby has no GVL: the trial's runtime, not its label"
    assert_equal "gvl", verdict(trial(**gvl_like, server: 100.0, busiest: 100.0, "setup_runtime" => "mri",
                                                   "setup" => "puma x1:16 on jruby")).kind, "the runtime wins over the label"
    refute_equal "gvl", verdict(trial(**gvl_like, server: 139.0, busiest: 139.0)).kind,
                 "a process over one core is not held by a GVL"
  end

  def test_two_processes_on_two_cores_are_cpu_bound_not_gvl_bound
    v = verdict(trial(workers: 2, threads: 5, server: 185.0, busiest: 93.0, waiting: 6.0, client: 5.0))
    assert_equal "cpu", v.kind, v.text
  end

  def test_below_capacity_without_queue_or_cpu
    v = verdict(trial(c: 1, rps: 19.5, mean: 51.0, waiting: 0.0, server: 2.0))
    assert_equal "under", v.kind, v.text
  end

  def test_upstream_on_network_io
    v = verdict(trial(c: 4, workers: 1, threads: 5, rps: 38.0, mean: 105.0, waiting: 0.0, backlog: 0.0, busy_threads: 4.0,
                      "endpoint" => "/network-io", "upstream_delay_s" => 0.1))
    assert_equal "upstream", v.kind, v.text
    assert_match(/100 ms is 95% of the mean latency/, v.reason)
  end

  # Falcon serves every accepted request at once on fibers: 16 in flight on
  # 2 processes with no queue is below capacity (16 / 0.05 s = 320 req/s),
  # never "2 of 2 workers busy".
  def test_fibers_have_no_slots_to_be_busy
    falcon = { "fibers" => true, "setup" => "falcon x2" }
    v = verdict(trial(c: 16, rps: 305.0, mean: 52.0, waiting: 0.0, server: 16.0, busiest: 8.0, **falcon))
    assert_equal "under", v.kind, v.text
    assert_match(/16 request\(s\) in flight on 2 processes' fibers \(no slots\)/, v.reason)
    assert_nil v.evidence["slots"]
    assert_equal 16.0, v.evidence["busy_slots"]
    assert_equal "busy", verdict(trial(c: 16, rps: 305.0, mean: 52.0, waiting: 0.0, server: 16.0)).kind,
                 "the same figures from 2 single-threaded workers: both busy"
    queued = verdict(trial(c: 64, rps: 300.0, mean: 210.0, waiting: 40.0, server: 30.0, **falcon))
    assert_equal "busy", queued.kind, "a queue it has not accepted still shows"
    assert_match(/24 request\(s\) served on 2 processes' fibers while CPU/, queued.reason)
  end

  def test_fibers_on_cpu_work
    falcon = { "fibers" => true, "setup" => "falcon x2" }
    v = verdict(trial(c: 8, rps: 80.0, mean: 100.0, waiting: 0.0, server: 185.0, busiest: 93.0, **falcon))
    assert_equal "cpu", v.kind, v.text
    one = verdict(trial(c: 8, workers: 1, rps: 40.0, mean: 200.0, waiting: 0.0, server: 97.0, busiest: 97.0,
                        "fibers" => true, "setup" => "falcon x1"))
    assert_equal "process_cpu", one.kind, "one process runs its fibers on one thread: CPU per process, no GVL to share"
    assert_equal "CPU-bound per process", one.label
    assert_match(/its one process used 97% of one core, all one process can use: its fibers share one thread, while 1 core/, one.reason)
    c1 = verdict(trial(c: 1, workers: 1, waiting: 0.0, server: 97.0, busiest: 97.0, **falcon))
    refute_includes %w[gvl process_cpu], c1.kind, "one request in flight: nothing waits for the core"
  end

  # c = 1 in every default run (issue 34): one connection is sequential.
  def test_one_connection_is_sequential_no_split_and_no_more_workers
    thin = verdict(trial(c: 1, workers: 1, threads: 1, rps: 2000.0, mean: 0.5, waiting: 0.0, server: 97.0, busiest: 97.0))
    assert_equal "under", thin.kind, thin.text
    assert_match(/\A1 request\(s\) in flight on one connection, one at a time \(c = 1\): req\/s is 1 \/ latency \(0\.5 ms a request\), so no split over workers and no more workers or threads can raise it; more connections would/, thin.reason)
    refute_match(/more workers would help|more processes would use/, thin.reason)
    assert_equal "busy", verdict(trial(c: 2, workers: 1, threads: 1, rps: 2000.0, mean: 1.0, waiting: 1.0, server: 60.0, busiest: 60.0)).kind,
                 "two connections on one worker: one waits, more workers would serve it"
  end

  def test_errors_and_restarts_come_first
    assert_equal "errors", verdict(trial("error_rate" => 0.05, "errors" => { "status" => 20 })).kind
    assert_equal "errors", verdict(trial("processes" => { "worker_restarts" => 1 })).kind
    said = verdict(trial("error_rate" => 0.45, "errors" => { "status" => 57 },
                         "app_error" => "#<NoMethodError: undefined method `result_status' for nil:NilClass>"))
    assert_match(/\A45% of requests failed \(status 57\); the app raised: #<NoMethodError: undefined method `result_status'/, said.reason)
  end

  def test_load_generator_on_a_saturated_machine
    v = verdict(trial(server: 120.0, client: 70.0, machine: 195.0))
    assert_equal "client", v.kind, v.text
  end

  def test_a_crowded_machine_leaves_cpu_unjudged
    v = verdict(trial(c: 1, waiting: 0.0, server: 10.0, machine: 190.0))
    assert_equal "unknown", v.kind
    assert_match(/other processes used 179%/, v.reason)
    busy = verdict(trial(server: 3.0, machine: 195.0))
    assert_equal "busy", busy.kind, "the queue still shows"
    assert_match(/CPU not judged/, busy.reason)
  end

  def test_unknown_with_reasons_when_nothing_was_measured
    v = verdict({ "rps" => 10.0, "concurrency" => 1, "latency_ms" => { "mean" => 100.0 } })
    assert_equal "unknown", v.kind
    assert_match(/external server/, v.reason)
    no_queue = trial(c: 1, waiting: 0.0).tap { |t| t["queues"] = { "accept" => { "unknown" => "sock_diag netlink unavailable" }, "waiting_mean" => nil } }
    v = verdict(no_queue)
    assert_equal "unknown", v.kind
    assert_match(/sock_diag netlink unavailable/, v.reason)
  end

  def test_littles_law_holds_and_fails
    assert verdict(trial(c: 16, rps: 40.0, mean: 380.0)).little.holds
    broken = verdict(trial(c: 1, rps: 48.8, mean: 32.6)).little
    refute broken.holds
    assert_match(/\+59%.*synthetic samples/, broken.note)
    assert_match(/connect time/, verdict(trial(c: 16, rps: 20.0, mean: 380.0)).little.note)
    hung = Rackbench::Stats::LittlesLaw.check(trial(c: 4, rps: 96.8, mean: 0.6).merge("unanswered" => 4))
    assert_match(/\A.*-99%\): 4 connection\(s\) held a request the server never answered/, hung.note)
  end

  def test_a_cell_takes_its_trials_most_common_verdict
    busy = trial
    under = trial(c: 1, waiting: 0.0)
    assert_equal "busy", Rackbench::Stats::Verdict.for_cell([under, busy, busy]).kind
  end
end
