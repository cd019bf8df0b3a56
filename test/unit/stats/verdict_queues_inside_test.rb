# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/verdict"

# Servers that accept every connection and queue the requests their threads
# cannot take themselves (Itsi, Iodine, Agoo: the trial's "queues_inside"),
# from the figures of real trials on 2 cores: nothing waits in the kernel's
# accept queue, so without the fact every such trial read "10 of 10 threads
# busy", even when one process held every connection.
class VerdictQueuesInsideTest < Minitest::Test
  def trial(rps:, shares:, worker_cpu:, c: 16, workers: 2, threads: 5, inside: true)
    balance = worker_cpu.each_with_index.map { |cpu, i| { "pid" => 100 + i, "cpu_pct" => cpu, "requests_share" => shares[i] } }
    { "setup" => "agoo x#{workers}:#{threads}", "endpoint" => "/pause/0.05", "loop" => "closed", "concurrency" => c,
      "workers" => workers, "threads" => threads, "fibers" => false, "queues_inside" => inside, "rps" => rps,
      "latency_ms" => { "mean" => 1000.0 * c / rps }, "error_rate" => 0.0, "processes" => { "worker_restarts" => 0 },
      "cpu" => { "server_pct" => worker_cpu.sum, "client_pct" => 2.0, "cores" => 2, "client_machine_share" => 0.01 },
      "machine" => { "cpu_pct" => worker_cpu.sum + 5.0, "rackbench_pct" => 3.0, "steal_pct" => 0.0, "foreign_pct" => 0.0,
                     "foreign_limit_pct" => 13.0 },
      "queues" => { "accept" => { "mean" => 0.0, "max" => 0 }, "waiting_mean" => 0.0,
                    "server" => { "unknown" => "agoo has no stats interface rackbench reads" } },
      "balance" => { "workers" => balance, "busiest_cpu_pct" => worker_cpu.max,
                     "spread" => (shares.max * shares.size).round(2) } }
  end

  # agoo x2:5, /pause/0.05, c=16: 98 req/s, the forked worker served 96% of
  # the requests (it accepted the connections first; keep-alive kept them).
  def test_one_process_holding_the_connections_is_unbalanced
    record = trial(rps: 98.0, shares: [0.963, 0.037], worker_cpu: [3.9, 14.1])
    v = Rackbench::Stats::Verdict.for(record)
    assert_equal "unbalanced", v.kind, v.text
    assert_match(/requests split 96%:4% over 2 workers .* 10\.8 waiting on average, 10\.8 of them inside the server .* 5\.2 of 10 threads busy/, v.reason)
    old = Rackbench::Stats::Verdict.for(record.merge("queues_inside" => false))
    assert_equal ["busy", true], [old.kind, old.reason.include?("10 of 10 threads busy")], "what the rule said before the fact"
  end

  # iodine x2:5 on the same load, evenly split: 197 req/s of a 200 bound.
  def test_an_even_split_is_threads_busy_with_the_queue_inside
    v = Rackbench::Stats::Verdict.for(trial(rps: 197.0, shares: [0.51, 0.49], worker_cpu: [5.0, 5.0]))
    assert_equal ["busy", "threads busy"], [v.kind, v.label], v.text
    assert_match(/6\.2 waiting on average, 6\.2 of them inside the server .*; 9\.8 of 10 threads busy while CPU is not the limit/, v.reason)
  end

  # agoo x2:5, /fibonacci/25, c=8 (CI's figures): the first process served
  # 71% of the requests on 90% of one core, the other 46%; nothing queued and
  # the server used 136% of 200%. Before, this read "below capacity: more
  # load would raise throughput".
  def test_a_busiest_process_at_one_core_with_cpu_to_spare_is_unbalanced
    record = trial(c: 8, rps: 385.0, shares: [0.707, 0.293], worker_cpu: [89.9, 45.9])
    v = Rackbench::Stats::Verdict.for(record)
    assert_equal "unbalanced", v.kind, v.text
    assert_match(/requests split 71%:29% over 2 workers \(the busiest served 1\.4x an even share; a keep-alive split: each of the 8 connections stays on the worker that accepted it\) while its busiest process used 90% of one core/, v.reason)
    assert_match(/0\.6 core\(s\) of the CPU left to the server stayed idle/, v.reason)
    even = Rackbench::Stats::Verdict.for(record.merge("balance" => record["balance"].merge("spread" => 1.1)))
    assert_equal "under", even.kind, "an even split with CPU to spare is below capacity: #{even.text}"
  end

  # Fewer in flight than slots: nothing waits, whatever the split.
  def test_below_the_slots_nothing_waits_inside
    v = Rackbench::Stats::Verdict.for(trial(c: 4, rps: 79.0, shares: [0.5, 0.5], worker_cpu: [2.0, 2.0]))
    assert_equal "under", v.kind, v.text
    refute_match(/inside the server/, v.reason)
  end
end
