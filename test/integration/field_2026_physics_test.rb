# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/server"
require "rackbench/stats/verdict"
require "rackbench/sampling/noise"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/workload/arena"
require "rackbench/process_control/server_instance"
require "rackbench/process_control/http_probe"

# The 2026 field under load (2 s measured after a 1 s warm-up, one run per
# endpoint with every setup), each against the bound its construction sets:
# Itsi, Iodine and Agoo with threads (W x T slots; requests beyond them wait
# inside the server, which accepts every connection), Itsi's fiber
# scheduler (no slots), and Puma's knobs: fiber_per_request adds no slot,
# max_io_threads adds threads for requests the app marks as IO (the arena's
# /pause does). A verdict that needs a quiet machine skips on a crowded one,
# as in verdict_physics_test.rb (and fails in CI, where no test may skip).
class Field2026PhysicsTest < Minitest::Test
  PAUSE = 0.05

  # Each setup's trial by its label. A run boots and measures its setups one
  # after the other, each on its own, so a setup whose trial says other
  # processes took the CPU (Sampling::Noise.foreign?) is measured again in a
  # run of the setups that were crowded only, ATTEMPTS runs in all (as
  # quiet_measurement does for a whole run, without measuring again the
  # setups whose trials were quiet); the last trial stands, whatever it says.
  ATTEMPTS = 3

  def run_setups(setups, endpoint, concurrency)
    require_tool!("wrk")
    setups.each { |s| require_tool!(s[/\A\w+/], Rackbench::Server.adapter(s[/\A\w+/]).available?) }
    records = {}
    ATTEMPTS.times do
      todo = setups.reject { |s| records.key?(s) && !Rackbench::Sampling::Noise.foreign?(records[s]) }
      break if todo.empty?

      records.merge!(run_once(todo, endpoint, concurrency))
    end
    records
  end

  def run_once(setups, endpoint, concurrency)
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", *setups.flat_map { |s| ["-s", s] }, "-e", endpoint, "-c", concurrency, "-d", "2",
                                "--warmup", "1", "-q", "-o", dir)
    assert_equal 0, status, err
    File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }.to_h { |t| [t["setup"], t] }
  end

  def verdict_of(record, *expected)
    v = Rackbench::Stats::Verdict.for(record)
    skip "machine crowded by other processes: #{v.reason}" if v.kind == "unknown" && v.reason.include?("other processes used")
    assert_includes expected, v.kind, "#{record['setup']}: #{v.text}\n#{JSON.generate(record.slice('cpu', 'queues', 'balance'))}"
    v
  end

  # W x T threads on /pause/0.05: at most W x T / 0.05 req/s. Keep-alive
  # connections stay with the process that accepted them (Itsi's workers
  # each listen with SO_REUSEPORT; Agoo's first process often takes them
  # all), so a process holding fewer connections than threads leaves slots
  # idle: then the verdict is "unbalanced" and req/s x spread reaches the bound.
  def assert_slot_bound(record, slots)
    bound = slots / PAUSE
    spread = [record.dig("balance", "spread").to_f, 1.0].max
    assert_operator record["rps"], :<=, 1.03 * bound, "#{record['setup']}: above its #{slots} slots' bound"
    assert_operator record["rps"] * spread, :>=, 0.8 * bound, "#{record['setup']}: #{record['rps']} req/s, spread #{spread}"
    assert_equal record.dig("balance", "workers").size, record["workers"], "#{record['setup']}: every serving process sampled"
    assert record["queues_inside"], "#{record['setup']}: it queues inside" unless record["server"] == "puma"
    refute record["fibers"], "#{record['setup']}: threads, not fibers"
    assert_kind_fits(record, verdict_of(record, "busy", "unbalanced"))
  end

  # Either kind a test accepts must fit the record's own figures, so a
  # verdict that contradicts what was measured fails whichever it is:
  # busy: every thread busy, the queue inside the server where it queues
  # there; unbalanced: the busiest process served at least 1.25x an even
  # share (62.5% of the requests on one of 2); cpu: the server used at least
  # 80% of the CPU left to it (a core, less what others took); under: less.
  def assert_kind_fits(record, verdict)
    why = "#{record['setup']}: #{verdict.text}"
    server_pct = record.dig("cpu", "server_pct").to_f
    room = Rackbench::Stats::Verdict::Measures.new(record).room
    case verdict.kind
    when "busy"
      assert_equal "threads busy", verdict.label, why
      assert_match(/inside the server/, verdict.reason, why) if record["queues_inside"]
    when "unbalanced"
      assert_operator record.dig("balance", "spread").to_f, :>=, 1.25, why
      assert_match(/\Arequests split \d+%:\d+% over 2 workers/, verdict.reason, why)
    when "cpu" then assert_operator server_pct, :>=, 0.8 * room, "#{why}: CPU-bound at #{server_pct}% of #{room.round}%"
    when "under" then assert_operator server_pct, :<, 0.8 * room, "#{why}: below capacity at #{server_pct}% of #{room.round}%"
    else flunk "#{why}: no figures to check a #{verdict.kind} verdict against"
    end
  end

  def test_threads_on_pause_are_bound_by_their_slots
    records = run_setups(["itsi x2:5", "iodine x2:5", "agoo x2:5", "puma x2:5 fibers"], "/pause/#{PAUSE}", 16)
    records.each_value { |r| assert_slot_bound(r, 10) }
    assert_equal({ "fibers" => true }, records["puma x2:5 fibers"].then { |r| Rackbench::Setup.parse(r["setup"]).options })
  end

  # CPU-bound, or, where keep-alive connections stayed mostly with one
  # process (Agoo's first often takes most), unbalanced: that process at one
  # core while the CPU left to the server had room (seen in CI: 71%:29%,
  # 90% and 46% of a core). Agoo alone may also read "below capacity": in 10
  # runs here (2026-11-27, quiet) itsi, iodine and puma fibers read cpu 10 of
  # 10 (162-195% of 200%, spread 1.00-1.07); agoo cpu 6 (spread 1.02-1.06),
  # unbalanced 3 (1.93-2.0) and under 1 (132%, spread 1.23); in CI it read
  # under at 150% and 152% (spread 1.35), and at 145% with an even split
  # (spread 1.04, both processes near 72% of a core, 8 requests in flight
  # for its 10 threads). So an uneven split is not the only cause (the rule
  # this replaced accepted agoo's "under" only at a spread of 1.10 or more,
  # and failed CI): Agoo's C threads hand requests to Ruby threads that take
  # the GVL in turn, and its processes leave part of a core unused. Its
  # "under" is accepted whatever the split, and must fit its figures (the
  # server below 80% of the CPU it could have had); the other three must
  # read cpu or unbalanced. Not the run queue: runq / CPU per request was
  # 0.13-1.81 in those cpu verdicts, so "waited for a CPU longer than it
  # ran" is no sign of starvation and would let any server's "under" pass.
  def test_every_server_on_fibonacci_is_cpu_bound
    records = run_setups(["itsi x2:5", "iodine x2:5", "agoo x2:5", "puma x2:5 fibers"], "/fibonacci/25", 8)
    records.each_value do |r|
      v = r["server"] == "agoo" ? verdict_of(r, "cpu", "unbalanced", "under") : verdict_of(r, "cpu", "unbalanced")
      assert_kind_fits(r, v)
      assert_operator r.dig("balance", "busiest_cpu_pct"), :>=, 70.0, "#{r['setup']}: #{v.text}" if v.kind == "unbalanced"
    end
  end

  # Itsi's fiber scheduler: one thread per process serving all 16 at once,
  # 16 / 0.05 = 320 req/s; no slot is "busy". Itsi::Scheduler keeps its
  # thread busy while fibers sleep (about 0.8-1 core per process here, 1.9
  # of the 2 cores for x2), so the server takes the CPU left to it and the
  # verdict is CPU-bound; on a machine with cores to spare it would be
  # "below capacity". Never "busy": fibers have no slots.
  def test_itsi_fibers_serve_every_connection_at_once
    record = run_setups(["itsi x2 fibers"], "/pause/#{PAUSE}", 16).fetch("itsi x2 fibers")
    assert record["fibers"], "the trial records the fibers"
    assert_includes 0.8..1.03, (record["rps"] / (16 / PAUSE)).round(3), "#{record['rps']} req/s against 320"
    cpu_s = record.dig("cpu", "server_pct") / 100.0 * record.dig("sampler", "duration_s")
    assert_operator cpu_s / record.dig("sampler", "duration_s"), :>, 0.8, "the scheduler's CPU on a sleeping endpoint"
    v = verdict_of(record, "under", "cpu")
    assert_kind_fits(record, v)
    assert_match(/16 request\(s\) in flight on 2 processes' fibers/, v.reason) if v.kind == "under"
  end

  # One Puma process of 2 threads: 6 requests of /pause/0.3 at once take 3
  # rounds (0.9 s); with io:4 the arena marks each as IO (env["puma.mark_as_io_bound"])
  # and Puma runs up to 4 more threads for them: one round (0.3 s). A burst on
  # a fresh boot: under sustained load Puma 8.0.2 loses those threads again
  # (each extra IO thread that exits leaks a count in its pool's @spawned,
  # puma#3968, fixed after 8.0.2; a 2 s run here fell back to 39 req/s, the
  # 2 threads' bound, with 13 threads counted busy).
  def test_puma_max_io_threads_adds_threads_for_marked_requests
    plain = burst("puma x1:2", 6, 0.3)
    io = burst("puma x1:2 io:4", 6, 0.3)
    assert_operator plain, :>=, 0.85, "three rounds of 2"
    assert_operator io, :<, 0.6, "one round of 6 (plain took #{plain.round(2)} s)"
  end

  # Seconds n requests of /pause/S sent at once take on a fresh boot of label.
  def burst(label, n, seconds)
    setup = Rackbench::Setup.parse(label)
    instance = Rackbench::ProcessControl::ServerInstance.new(
      adapter: Rackbench::Server.adapter(setup.server), setup: setup, app: Rackbench::Workload::Arena::CONFIG_RU,
      port: Rackbench::Ports.free, dir: tmpdir, ready_path: Rackbench::Workload::Arena::READY_PATH
    ).start
    Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/hello", timeout: 10) # first-request costs, untimed
    t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    get = -> { Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/pause/#{seconds}", timeout: 10)&.status }
    statuses = Array.new(n) { Thread.new(&get) }.map(&:value)
    took = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
    assert_equal [200] * n, statuses, label
    took
  ensure
    instance&.stop
  end
end
