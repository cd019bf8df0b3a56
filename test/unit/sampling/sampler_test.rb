# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "rackbench/sampling/sampler"

class SamplerTest < Minitest::Test
  FIXTURES = File.expand_path("../../fixtures/proc", __dir__)
  include Rackbench::Sampling

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

  def sampler(roles)
    Sampler.new(roles: roles, proc_root: @root, clock: @clock, cores: 2)
  end

  def test_samples_roles_rediscovered_at_each_sample
    calls = 0
    roles = lambda do
      calls += 1
      { "master" => [100], "worker" => calls == 1 ? [101, 102] : [101, 102, 103], "client" => [104] }
    end
    s = sampler(roles)
    s.sample
    add_ticks(101, ProcStat.ticks_per_second / 10) # 0.1 s of CPU in 0.1 s: one core
    add_ticks(104, ProcStat.ticks_per_second / 20)
    @clock.advance(0.1)
    s.sample
    summary = s.summary
    assert_equal [0.0, 0.1], summary.samples.map { |x| x.t.round(6) }
    assert_in_delta 100.0, summary.cpu_pct("worker"), 1e-6
    assert_in_delta 50.0, summary.cpu_pct("client"), 1e-6
    assert_equal 3, summary.workers_seen.size
    h = summary.to_h
    assert_equal 2, h["samples"]
    assert_in_delta (9850 + 9103 + 9306 + 5525) / 1024.0, h["memory"]["pss_total_max_mb"], 0.01
    client = summary.samples.last.readings.find { |r| r.role == "client" }
    assert_nil client.pss, "smaps is not read for the load generator"
    assert_equal 50.0, s.series.last["processes"].find { |p| p["pid"] == 104 }["cpu_pct"]
  end

  def test_vanished_reused_and_duplicate_pids_are_skipped
    entry = ProcessTree::Entry.new(pid: 102, starttime: 1) # pid 102 now belongs to another process
    s = sampler(-> { { "master" => [100], "worker" => [101, entry, 999], "other" => [100] } })
    s.sample
    assert_equal [[100, "master"], [101, "worker"]], s.summary.samples.first.readings.map { |r| [r.pid, r.role] }
  end

  def test_errors_of_the_roles_callable_are_recorded_not_raised
    s = sampler(-> { raise "no such server" })
    s.sample
    assert_equal 0, s.summary.samples.size
    assert_equal ["RuntimeError: no such server"], s.summary.to_h["errors"]
  end

  def test_thread_samples_on_the_monotonic_schedule
    s = Sampler.new(roles: -> { { "master" => [Process.pid] } }, interval: 0.02)
    s.start
    sleep 0.3
    summary = s.stop
    assert_includes 8..17, summary.samples.size
    gaps = summary.samples.each_cons(2).map { |a, b| b.t - a.t }[0...-1]
    assert_in_delta 0.02, gaps.sum / gaps.size, 0.005
    assert_operator summary.sampler_cpu_seconds, :>=, 0
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
