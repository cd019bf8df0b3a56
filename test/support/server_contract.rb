# frozen_string_literal: true

require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/workload/arena"
require "rackbench/process_control/http_probe"

# Shared contract test for server adapters (Rack::Lint's idea applied to
# servers): the including class defines #setup_label. One test boots the real
# server on the arena app (once per server), checks what it serves and which
# processes it has, stops it with requests in flight, and checks it stopped
# gracefully and nothing of it is left.
module ServerContract
  # Passenger comes from a Debian package (bin/setup): skipped where it is
  # missing, failed in CI (require_tool!).
  def setup
    require_tool!(rb_setup.server, adapter.available?)
  end

  def adapter
    Rackbench::Server.adapter(rb_setup.server)
  end

  def rb_setup
    @rb_setup ||= Rackbench::Setup.parse(setup_label)
  end

  def boot
    instance = Rackbench::ProcessControl::ServerInstance.new(adapter: adapter, setup: rb_setup, app: Rackbench::Workload::Arena::CONFIG_RU,
                                               port: Rackbench::Ports.free, dir: tmpdir,
                                               ready_path: Rackbench::Workload::Arena::READY_PATH)
    instance.start
  end

  def test_describes_itself
    assert_equal rb_setup.server, adapter.key
    assert_match(/\A\d+\.\d+\.\d+/, adapter.version)
    assert_includes %w[TERM QUIT INT], adapter.graceful_signal
    argv = adapter.argv(rb_setup, app: "/x/config.ru", port: 1234, dir: tmpdir)
    assert_kind_of Array, argv
    assert(argv.any? { |a| a.include?("1234") }, "the port is on the command line")
    refute adapter.spawn_failed?(""), "an empty log says nothing failed"
  end

  # The facts Setup, Config and tune read from the adapter class: each
  # names a setup this server accepts, and the adapter is registered.
  def test_states_its_facts
    klass = adapter.class
    assert_same klass, Rackbench::Server::ADAPTERS.fetch(rb_setup.server), "registered under its key"
    assert_equal rb_setup.server, Rackbench::Setup.parse(klass.footprint_label).server
    label = klass.default_label(4)
    assert_equal rb_setup.server, Rackbench::Setup.parse(label).server if label
    key = rb_setup.server
    if klass.threads
      assert_equal klass.threads, Rackbench::Setup.parse("#{key} x1").threads, "its default thread count"
      refute_empty klass.thread_ladder, "tune's thread counts for it"
      klass.thread_ladder.each { |t| Rackbench::Setup.parse("#{key} x2:#{t}") } unless klass.only_one_process?
    else
      assert_raises(Rackbench::UsageError) { Rackbench::Setup.parse("#{key} x1:2") }
      assert_empty klass.thread_ladder, "one thread per process: no ladder"
    end
    assert_includes [true, false], klass.closes_after_error?
    assert(klass.no_tls.nil? || (klass.no_tls.is_a?(String) && !klass.no_tls.empty?), "no_tls: nil or the reason")
    assert_raises(Rackbench::UsageError) { Rackbench::Setup.parse("#{key} x2") } if klass.only_one_process?
    assert_operator klass.in_flight_per_process, :>=, 1
    klass.runtime_adapters.each do |runtime, other|
      assert_equal key, other.key, "its #{runtime} adapter runs the same server"
      assert_instance_of other, Rackbench::Server.adapter(key, runtime: runtime)
    end
    files = klass.deploy_files(rb_setup, "# header")
    assert_kind_of Hash, files
    assert_kind_of String, klass.deploy_command(rb_setup) if files.any?
  end

  # One boot for the whole lifecycle (a boot costs seconds; the checks
  # milliseconds): it serves, its workers are found, and then, stopped while
  # every worker is busy (as a Ctrl-C mid-trial stops it), its graceful
  # signal ends it with no KILL after --stop-timeout, leaving no process and
  # no listening port. A Unicorn QUIT sent to the whole group left a busy
  # worker asleep for a minute, and the stop ended in KILL.
  def test_boots_serves_finds_workers_and_stops_gracefully_and_clean
    instance = boot
    res = Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/server")
    assert_equal 200, res.status
    info = JSON.parse(res.body)
    assert_equal rb_setup.server, info["server"]
    workers = instance.workers
    expected = adapter.runs_one_process?(rb_setup) ? 1 : rb_setup.workers
    assert_equal expected, workers.size, "worker processes found: #{workers.map(&:pid)}"
    assert_includes workers.map(&:pid), info["pid"], "the request was served by a worker we found"
    all = instance.processes
    n = 2 * workers.size
    busy = Array.new(n) do
      Thread.new { Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/pause/0.5", timeout: 10) rescue nil }
    end
    sleep 0.2 # the requests reach the workers
    instance.stop
    busy.each(&:join)
    refute_match(/SIGKILL/, instance.child.exit_summary, "stopped by its graceful signal (#{adapter.graceful_signal})")
    refute instance.alive?
    survivors = all.select { |e| Rackbench::System::ProcessTree.alive?(e) }
    assert_empty survivors, "left running: #{survivors.map(&:pid)}"
    refute Rackbench::System::Sockets.port_in_use?(instance.port), "port #{instance.port} still listening"
  ensure
    instance&.stop
  end
end
