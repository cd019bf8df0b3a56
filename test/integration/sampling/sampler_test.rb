# frozen_string_literal: true

require "test_helper"
require "rbconfig"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/workload/arena"
require "rackbench/process_control/http_probe"
require "rackbench/process_control/child"
require "rackbench/sampling/sampler"

# The sampler against real processes: a preloaded Puma cluster (memory,
# workers) and a busy-looping Ruby (CPU %).
class SamplerIntegrationTest < Minitest::Test
  Sampler = Rackbench::Sampling::Sampler

  def boot(label)
    setup = Rackbench::Setup.parse(label)
    Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter(setup.server), setup: setup,
                                    app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free,
                                    dir: tmpdir, ready_path: Rackbench::Workload::Arena::READY_PATH).start
  end

  def test_preloaded_puma_footprint_is_pss_not_summed_rss
    instance = boot("puma x2:3")
    sampler = Sampler.new(roles: Sampler.roles_for(instance)).start
    5.times do
      assert_equal 200, Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/template-render").status
    end
    sleep 1.0 # five ticks at least, one missed on a busy machine aside
    summary = sampler.stop
    assert_operator summary.samples.size, :>=, 4
    assert_operator summary.pss_total, :>, 0
    assert_operator summary.pss_total, :<, summary.rss_sum, "copy-on-write pages are counted once, not per worker"
    assert_operator summary.pss_per_worker, :>, 0
    assert_operator summary.pss_master, :>, 0
    assert_equal 2, summary.workers_seen.size
    assert_equal 0, summary.worker_restarts
    h = summary.to_h
    assert_operator h["processes"]["threads_max"], :>=, 2 * 3 + 1
    assert_equal %w[master worker], sampler.series.last["processes"].map { |p| p["role"] }.uniq
  ensure
    sampler&.stop
    instance&.stop
  end

  # The truth to compare with: the nanoseconds the kernel's scheduler ran
  # the (single-threaded) process, from /proc/PID/schedstat.
  def run_ns(pid)
    File.read("/proc/#{pid}/schedstat").split.first.to_i
  end

  def test_a_busy_process_shows_one_core
    child = Rackbench::ProcessControl::Child.spawn([RbConfig.ruby, "-e", "loop {}"], log_path: File::NULL)
    sleep 0.2 # past Ruby's boot
    sampler = Sampler.new(roles: -> { { "client" => [child.pid] } })
    ns = run_ns(child.pid)
    wall = Rackbench::Clock.now
    sampler.start
    sleep 1.0
    summary = sampler.stop
    truth = 100.0 * (run_ns(child.pid) - ns) / 1e9 / (Rackbench::Clock.now - wall)
    measured = summary.cpu_pct("client")
    assert_in_delta truth, measured, 10, "scheduler says #{truth.round(1)}%; samples: #{summary.series.inspect}"
    # (The scheduler's figure is at most one core for this one thread, so
    # the 10-point band above also bounds the reading by 110%; a machine busy
    # with other work lowers the truth and the reading with it.)
    assert_in_delta measured / (100.0 * Etc.nprocessors), summary.to_h["cpu"]["client_machine_share"], 0.001
  ensure
    sampler&.stop
    child&.stop("KILL", timeout: 2)
  end
end
