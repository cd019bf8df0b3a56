# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/workload/probe_wrapper"
require "rackbench/workload/app"
require "rackbench/sampling/probe_files"
require_relative "../../../apps/arena/probe"
require_relative "../../../apps/arena/probe_rails"

# The in-process probe in this process: what it counts per request, and the
# Rails figures it adds through fakes of ActiveSupport::Notifications and
# the Active Record pool.
class ProbeTest < Minitest::Test
  Probe = Rackbench::Workload::Arena::Probe
  ProbeRails = Rackbench::Workload::Arena::ProbeRails

  def burn(seconds)
    stop = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + seconds
    nil while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) < stop
  end

  def probe(app, dir = tmpdir)
    Probe.wrap(app, { Probe::ENV_KEY => dir })
  end

  # 4 requests of 5 ms of CPU then 10 ms asleep: the thread clock sees the
  # CPU and not the sleep; the wall clock both.
  def test_counts_wall_and_thread_cpu_per_request
    app = probe(lambda { |_env|
      burn(0.005)
      sleep 0.010
      [200, {}, ["ok"]]
    })
    4.times { app.call({}) }
    s = app.snapshot
    assert_equal 4, s["requests"]
    # Each request burns at least 5 ms of thread CPU (a floor; a GC or the
    # wrapper's own work adds a little); the sleep counted would add 40 ms.
    assert_includes 0.0195..0.035, s["cpu_s"]
    assert_operator s["wall_s"], :>=, 0.060
    assert_equal 0, s["shared"]
    assert_operator s["process_cpu_s"], :>=, s["cpu_s"]
  ensure
    app&.close
  end

  # The run-queue delay of the threads that served requests, as Linux keeps
  # it (/proc/self/task/TID/schedstat, its second field, in ns): the probe's
  # reading falls between that thread's own readings before and after it.
  def test_reads_the_request_threads_run_queue_delay
    skip "no /proc schedstat here" unless File.exist?("/proc/self/task/#{Thread.current.native_thread_id}/schedstat")

    app = probe(->(_env) { [200, {}, ["ok"]] })
    jobs = Queue.new
    done = Queue.new
    server = Thread.new do
      while (job = jobs.pop)
        done << [job.call, Thread.current.native_thread_id]
      end
    end
    jobs << -> { app.call({}) }
    _, tid = done.pop
    wait = -> { File.read("/proc/self/task/#{tid}/schedstat").split[1].to_i / 1e9 }
    before = wait.call
    s = app.snapshot
    after = wait.call
    assert_equal 1, s["requests"]
    assert s.key?("runq_s"), "the thread that served a request is read"
    assert_includes (before - 1e-6)..(after + 1e-6), s["runq_s"], "the run-queue delay, not the thread's run time"
  ensure
    jobs&.push(nil)
    server&.join(5) || flunk("the serving thread did not end within 5 s")
    app&.close
  end

  # Two requests on fibers of one thread, each started before the other
  # ended (as Falcon runs them): the second is counted as shared, so
  # rackbench takes the process's CPU instead of the thread's.
  def test_requests_overlapping_on_one_thread_are_shared
    gate = []
    app = probe(lambda { |_env|
      gate << :in
      Fiber.yield
      [200, {}, ["ok"]]
    })
    a = Fiber.new { app.call({}) }
    b = Fiber.new { app.call({}) }
    a.resume
    b.resume
    a.resume
    b.resume
    s = app.snapshot
    assert_equal 2, s["requests"]
    assert_equal 1, s["shared"]
  ensure
    app&.close
  end

  def test_a_raising_app_is_still_counted_and_the_error_goes_on
    app = probe(->(_env) { raise ArgumentError, "boom" })
    assert_raises(ArgumentError) { app.call({}) }
    assert_equal 1, app.snapshot["requests"]
  ensure
    app&.close
  end

  # The files hold plain JSON of numbers, which ProbeFiles reads.
  def test_writes_files_probe_files_reads
    dir = tmpdir
    app = probe(->(_env) { [200, {}, ["ok"]] }, dir)
    3.times { app.call({}) }
    reading = Rackbench::Sampling::ProbeFiles.new(dir).read_fresh(Process.clock_gettime(Process::CLOCK_MONOTONIC))
    mine = reading.fetch(Process.pid)
    assert_equal 3, mine["requests"]
    assert_kind_of Float, mine["wall_s"]
    assert_equal({ "a" => 1, "b" => nil, "c" => 0.5 }, JSON.parse(Probe.json("a" => 1, "b" => nil, "c" => 0.5)))
  ensure
    app&.close
  end

  class FakeNotifications
    attr_reader :subscribers

    def initialize
      @subscribers = Hash.new { |h, k| h[k] = [] }
    end

    def monotonic_subscribe(event, &block)
      @subscribers[event] << block
    end

    def instrument(event, ms)
      @subscribers[event].each { |b| b.call(event, 10.0, 10.0 + ms / 1000.0, "id", {}) }
    end
  end

  FakePool = Struct.new(:stats) do
    def stat = stats.shift || { size: 5, busy: 0, waiting: 0 }
  end

  # SQL and view time from their events, the pool from its stat at each write.
  def test_rails_figures_from_notifications_and_the_pool
    events = FakeNotifications.new
    pool = FakePool.new([{ size: 5, busy: 5, waiting: 2 }, { size: 5, busy: 3, waiting: 0 }])
    rails = ProbeRails.new(notifications: -> { events }, pool: -> { pool }, active_record: -> { true })
    rails.start
    events.instrument(ProbeRails::SQL, 4.0)
    events.instrument(ProbeRails::SQL, 6.0)
    events.instrument(ProbeRails::VIEW, 12.5)
    2.times { rails.sample }
    f = rails.fields
    assert_in_delta 10.0, f["sql_ms"], 1e-6
    assert_equal 2, f["sql_count"]
    assert_in_delta 12.5, f["view_ms"], 1e-6
    assert_equal [5, 2, 8, 2, 1], f.values_at("pool_size", "pool_samples", "pool_busy_sum", "pool_waiting_sum", "pool_waiting_samples")
  end

  # Without Active Record: view time only; no SQL or pool field, not even a zero.
  def test_without_active_record_sql_and_pool_are_absent
    events = FakeNotifications.new
    rails = ProbeRails.new(notifications: -> { events }, pool: -> {}, active_record: -> { false })
    rails.start
    rails.sample
    events.instrument(ProbeRails::SQL, 4.0)
    assert_equal %w[view_count view_ms], rails.fields.keys.sort
    bare = ProbeRails.new(notifications: -> {}, pool: -> {}, active_record: -> { false })
    bare.start
    assert_empty bare.fields, "no ActiveSupport: nothing at all"
  end

  # The wrapper: absolute paths, the user's config.ru parsed as Rack 2 or 3
  # returns it, and the App it gives runs in the user's directory.
  def test_the_wrapper_and_the_app_it_gives
    app = Rackbench::Workload::App.resolve(File.expand_path("../../fixtures/apps/cpu_and_sleep", __dir__))
    wrapped = Rackbench::Workload::ProbeWrapper.write(app, tmpdir)
    assert wrapped.probed?
    assert_equal app.root, wrapped.root, "the server runs in the app's own directory"
    refute_equal app.config_ru, wrapped.config_ru
    assert_equal app.config_ru, wrapped.to_h["config_ru"], "meta.json names the user's config.ru"
    text = File.read(wrapped.config_ru)
    assert_includes text, "parse_file(#{app.config_ru.inspect})"
    assert_includes text, "loaded.is_a?(Array) ? loaded.first : loaded"
    assert_includes text, "require #{Rackbench::Workload::ProbeWrapper::PROBE.inspect}"
    refute app.probed?
  end
end
