# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "rackbench/sampling/sampler"
require "rackbench/process_control/child"

class SamplerTest < Minitest::Test
  FIXTURES = File.expand_path("../../fixtures/proc", __dir__)
  include Rackbench::Sampling
  include Rackbench::System

  FakeClock = Struct.new(:now) do
    def advance(seconds)
      self.now += seconds
    end
  end

  def setup
    @root = tmpdir
    FileUtils.cp_r(Dir["#{FIXTURES}/[0-9]*"], @root)
    @clock = FakeClock.new(1000.0)
  end

  def add_ticks(pid, ticks)
    path = "#{@root}/#{pid}/stat"
    raw = File.read(path)
    close = raw.rindex(")")
    f = raw[(close + 2)..].split
    head = raw[0...close]
    f[11] = (f[11].to_i + ticks).to_s
    File.write(path, "#{head}) #{f.join(' ')}")
  end

  # What /proc does when a process is reaped: files already open read as
  # nothing (the kernel says ESRCH), and the directory goes.
  def exit!(pid)
    File.write("#{@root}/#{pid}/stat", "")
    FileUtils.rm_rf("#{@root}/#{pid}")
  end

  # budget: unlimited by default, so the periods under test do not depend on
  # how much CPU this machine's other work leaves the test (CI saw memory read
  # at 0 and 1.5 s when one smaps pass took over 2 ms of CPU).
  def sampler(roles, client: nil, budget: Float::INFINITY)
    Sampler.new(roles: roles, client: client, interval: 0.1, proc_root: @root, clock: @clock, cores: 2, budget: budget)
  end

  def test_cpu_per_role_and_memory_from_the_proc_files
    s = sampler(-> { { "master" => [100], "worker" => [101, 102, 103] } })
    s.sample
    add_ticks(101, ProcStat.ticks_per_second / 10) # 0.1 s of CPU in 0.1 s: one core
    @clock.advance(0.1)
    s.sample
    summary = s.summary
    assert_equal [0.0, 0.1], summary.samples.map { |x| x.t.round(6) }
    assert_in_delta 100.0, summary.cpu_pct("worker"), 1e-6
    assert_in_delta 0.0, summary.cpu_pct("master"), 1e-6
    assert_in_delta (9850 + 9103 + 9306 + 5525) / 1024.0, summary.to_h["memory"]["pss_total_mb"], 0.01
    assert_equal 100.0, s.series.last["processes"].find { |p| p["pid"] == 101 }["cpu_pct"]
  end

  def test_memory_every_second_and_discovery_every_two_not_every_tick
    calls = 0
    s = sampler(lambda {
      calls += 1
      { "master" => [100], "worker" => [101, 102] }
    })
    21.times do
      s.sample
      @clock.advance(0.1)
    end
    with_memory = s.summary.samples.select { |x| x.readings.all?(&:pss) }.map { |x| x.t.round(1) }
    assert_equal [0.0, 1.0, 2.0], with_memory
    assert_equal 2, calls, "at 0 s and 2 s"
    s.sample(memory: true)
    assert s.summary.samples.last.readings.all?(&:pss)
  end

  def test_a_pass_over_its_budget_stretches_its_period
    s = sampler(-> { { "master" => [100], "worker" => [101, 102] } }, budget: 1e-9)
    21.times do
      s.sample
      @clock.advance(0.1)
    end
    with_memory = s.summary.samples.count { |x| x.readings.all?(&:pss) }
    assert_equal 1, with_memory, "any CPU spent reading smaps is over a budget of 1e-9, so the period grows past 2 s"
  end

  def test_a_vanished_process_triggers_discovery_in_the_same_sample
    workers = [101, 102]
    calls = 0
    s = sampler(lambda {
      calls += 1
      { "master" => [100], "worker" => workers.dup }
    })
    s.sample
    exit!(102) # worker 102 exited, 103 replaced it
    workers.replace([101, 103])
    @clock.advance(0.1)
    s.sample
    assert_equal 2, calls
    assert_equal [100, 101, 103], s.summary.samples.last.readings.map(&:pid)
    assert_equal 1, s.summary.worker_restarts
  end

  def test_a_process_listed_but_gone_is_forgotten_until_the_next_discovery
    calls = 0
    s = sampler(lambda {
      calls += 1
      { "worker" => [101, 999] }
    })
    3.times do
      s.sample
      @clock.advance(0.1)
    end
    assert_equal 2, calls, "once at start, once when 999 was found missing, not at every sample"
  end

  def test_client_callable_is_read_at_every_sample
    client = []
    s = sampler(-> { { "master" => [100] } }, client: -> { client })
    s.sample
    client << 104
    @clock.advance(0.1)
    s.sample
    add_ticks(104, ProcStat.ticks_per_second / 20)
    @clock.advance(0.1)
    s.sample
    # 0.05 s of CPU over the 0.2 s window (it was not there for the first tenth).
    assert_in_delta 25.0, s.summary.cpu_pct("client"), 1e-6
    reading = s.summary.samples.last.readings.find { |r| r.role == "client" }
    assert_nil reading.pss, "smaps is not read for the load generator"
  end

  def test_rediscover_forces_the_roles_call
    calls = 0
    s = sampler(lambda {
      calls += 1
      { "master" => [100] }
    })
    s.sample
    s.rediscover!
    s.sample
    assert_equal 2, calls
  end

  def test_walk_finds_children_like_the_process_tree
    child = Rackbench::ProcessControl::Child.spawn(%w[sleep 10])
    found = Sampler.walk([Process.pid]).map(&:pid)
    assert_equal Process.pid, found.first
    assert_includes found, child.pid
    assert_equal ProcessTree.tree(Process.pid).map(&:pid).sort, found.sort
  ensure
    child&.stop("KILL", timeout: 2)
  end

  def test_errors_of_the_roles_callable_are_recorded_not_raised
    s = sampler(-> { raise "no such server" })
    s.sample
    assert_equal 0, s.summary.samples.size
    assert_equal ["RuntimeError: no such server"], s.summary.to_h.dig("sampler", "errors")
  end

  def test_thread_samples_on_the_monotonic_schedule
    s = Sampler.new(roles: -> { { "master" => [Process.pid] } }, interval: 0.02)
    started = Rackbench::Clock.now
    s.start
    sleep 0.3
    stopping = Rackbench::Clock.now - started
    summary = s.stop
    elapsed = Rackbench::Clock.now - started
    # One tick per 0.02 s of however long it really ran (sleep may wake late
    # on a busy machine), each sampled or skipped, plus the closing sample:
    # at least the ticks due before the stop, at most those due by its end.
    assert_includes ((stopping / 0.02).floor - 2)..((elapsed / 0.02).floor + 2), summary.samples.size + summary.missed_ticks,
                    "#{stopping.round(3)}-#{elapsed.round(3)} s ran"
    assert_operator summary.samples.size, :>=, 3
    # The sampler's own thread CPU time: some, for its reads of /proc, and
    # well under the time it ran (a sampler busy all the time would show).
    assert_operator summary.sampler_cpu_seconds, :>, 0
    assert_operator summary.sampler_cpu_seconds, :<, elapsed / 2
    assert_operator summary.pss_total, :>, 0
  end

  def test_stop_does_not_wait_for_the_next_tick
    s = Sampler.new(roles: -> { { "master" => [Process.pid] } }, interval: 30)
    s.start
    sleep 0.05
    started = Rackbench::Clock.now
    summary = s.stop
    assert_operator Rackbench::Clock.now - started, :<, 1
    assert_equal 2, summary.samples.size, "the first sample and the closing one"
  end

  def test_rejects_a_bad_interval
    assert_raises(ArgumentError) { Sampler.new(roles: -> { {} }, interval: 0) }
  end
end
