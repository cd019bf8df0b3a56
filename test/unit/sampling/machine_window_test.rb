# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "rackbench/sampling/sampler"
require "rackbench/sampling/machine_window"

# Other processes' CPU over the process sampler's own window, with the
# error bound that sets its limit (Sampling::MachineWindow).
class MachineWindowTest < Minitest::Test
  FIXTURES = File.expand_path("../../fixtures/proc", __dir__)
  include Rackbench::Sampling
  include Rackbench::System

  FakeClock = Struct.new(:now) do
    def advance(seconds)
      self.now += seconds
    end
  end

  # cpu user nice system idle iowait irq softirq steal guest guest_nice (jiffies, every CPU)
  def write_stat(user:, system:, idle:, softirq: 0, steal: 0)
    File.write(File.join(@root, "stat"), "cpu  #{user} 0 #{system} #{idle} 0 0 #{softirq} #{steal} 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n")
  end

  def add_ticks(pid, ticks)
    path = "#{@root}/#{pid}/stat"
    raw = File.read(path)
    close = raw.rindex(")")
    f = raw[(close + 2)..].split
    f[11] = (f[11].to_i + ticks).to_s
    File.write(path, "#{raw[0...close]}) #{f.join(' ')}")
  end

  def setup
    @root = tmpdir
    FileUtils.cp_r(Dir["#{FIXTURES}/[0-9]*"], @root)
    @clock = FakeClock.new(50.0)
  end

  # Two samples 2 s apart on 2 cores: the server's worker used a whole core
  # (2 s), rackbench 0.1 s, the reaped wrk 0.4 s (the samples never saw it);
  # the machine counted 2.9 s busy of 4 s, softirq 0.1 s of it, and 0.3 s that
  # none of these used: 15% of a core, over the limit of 10% + (2 x 2 + 1) / 2 s.
  def test_foreign_cpu_over_the_samples_own_window
    own = [[5.0, 1.0], [5.1, 1.4]]
    window = MachineWindow.new(proc_root: @root, own: -> { own.shift })
    s = Sampler.new(roles: -> { { "worker" => [101] } }, interval: 0.1, proc_root: @root, clock: @clock, cores: 2,
                    budget: Float::INFINITY, machine: window)
    write_stat(user: 1000, system: 0, idle: 1000)
    s.sample
    add_ticks(101, 2 * ProcStat.ticks_per_second)
    write_stat(user: 1260, system: 20, softirq: 10, idle: 1110)
    @clock.advance(2.0)
    s.sample
    machine = s.summary.machine_h
    assert_equal 145.0, machine["cpu_pct"], "(260 + 20 + 10) / 400 jiffies x 2 cores"
    assert_equal 5.0, machine["interrupts_pct"]
    assert_equal 5.0, machine["rackbench_pct"]
    assert_equal 20.0, machine["client_reaped_pct"]
    assert_equal 15.0, machine["foreign_pct"], "145 - 5 interrupts - 100 server - 20 wrk - 5 rackbench"
    assert_equal 2.5, machine["foreign_error_pct"], "(2 x 2 cores + 1 process) x 10 ms / 2 s"
    assert_equal 12.5, machine["foreign_limit_pct"]
    assert Noise.foreign?({ "machine" => machine }), "15% is over the 12.5% limit"
    assert_equal "sampler", machine["window"]
  end

  # The limit grows with the cores: 20% of a core on 16 cores over 2 s is
  # within the counters' error ((32 + 10) / 2 = 21%), while on 2 cores it is not.
  def test_the_limit_scales_with_the_cores
    read = ->(busy, total) { MachineWindow::Reading.new(total: total, busy: busy, steal: 0, interrupts: 0, own_s: 0.0, reaped_s: 0.0) }
    big = MachineWindow.figures(read.call(0, 0), read.call(2040, 3200), wall_s: 2.0, cores: 16, server_pct: 1000.0,
                                client_pct: 0.0, processes: 10)
    assert_equal 20.0, big["foreign_pct"]
    assert_equal 21.0, big["foreign_error_pct"]
    refute Noise.foreign?({ "machine" => big })
    small = MachineWindow.figures(read.call(0, 0), read.call(240, 400), wall_s: 2.0, cores: 2, server_pct: 100.0,
                                  client_pct: 0.0, processes: 3)
    assert_equal 20.0, small["foreign_pct"]
    assert Noise.foreign?({ "machine" => small }), "20% over a limit of 10% + 3.5%"
    assert Noise.foreign?({ "machine" => { "foreign_pct" => 11.0 } }), "an old record: QUIET_PCT"
  end

  # No /proc/stat (or a sample without it): no figure, and the runner falls back.
  def test_no_reading_no_figure
    s = Sampler.new(roles: -> { { "worker" => [101] } }, interval: 0.1, proc_root: @root, clock: @clock, cores: 2,
                    budget: Float::INFINITY)
    s.sample
    @clock.advance(1.0)
    s.sample
    assert_nil s.summary.machine_h
  end

  # The real machine: figures exist and add up.
  def test_reads_this_machine
    reading = MachineWindow.new.read
    skip "no /proc/stat" unless reading
    assert_operator reading.total, :>, reading.busy
    assert_operator reading.own_s, :>, 0
  end
end
