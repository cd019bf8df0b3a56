# frozen_string_literal: true

require "test_helper"
require "json"
require "socket"
require "etc"
require "rackbench/workload/arena"

# rackbench run end to end: real servers, real wrk, stored trials.
class RunIntegrationTest < Minitest::Test
  def trials(dir)
    File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
  end

  def setups(dir)
    File.readlines(File.join(dir, "setups.jsonl")).map { |l| JSON.parse(l) }
  end

  # Physics: with T threads in all at concurrency c >= T, /pause/S serves T/S req/s.
  def test_pause_throughput_follows_the_thread_count
    dir = File.join(tmpdir, "run")
    # Puma in single mode: a cluster's keep-alive connections stay with the
    # worker that accepted them and can split unevenly (e.g. 7/1 on a busy
    # machine), which measures the accept race, not the thread count.
    status, out, err = run_cli("run", "-s", "puma x1:4", "-s", "unicorn x2", "-e", "/pause/0.05", "-c", "8",
                               "-d", "2", "--warmup", "0.5", "-o", dir)
    assert_equal 0, status, err
    by_setup = trials(dir).to_h { |t| [t["setup"], t] }
    puma = by_setup.fetch("puma x1:4")
    unicorn = by_setup.fetch("unicorn x2")
    [puma, unicorn].each do |t|
      assert_operator t["requests"], :>, 0
      assert_equal 0, t["error_total"], t["errors"].inspect
    end
    # Ceilings (each request's turnaround only takes from them): 0.8-1.02.
    assert_includes 64.0..81.6, puma["rps"], "puma 4 threads / 0.05 s"
    assert_includes 32.0..40.8, unicorn["rps"], "unicorn 2 workers / 0.05 s"
    booted = setups(dir).to_h { |s| [s["setup"], s] }
    assert_equal [booted["puma x1:4"]["master_pid"]], booted["puma x1:4"]["worker_pids"], "single mode: the master serves"
    assert_equal 2, booted["unicorn x2"]["worker_pids"].size
    assert_match(/puma x1:4/, out)
    assert_match(/unicorn x2/, out)
  end

  def test_a_setup_that_fails_to_boot_is_recorded_and_the_run_goes_on
    app_dir = tmpdir
    File.write(File.join(app_dir, "config.ru"), "raise 'the app refuses to boot'\n")
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "--app", File.join(app_dir, "config.ru"), "-s", "puma x1:2", "-s", "thin",
                                "-e", "/", "-c", "1", "-d", "1", "--warmup", "0", "-o", dir)
    assert_equal 1, status
    failed = setups(dir).select { |s| s["status"] == "failed" }
    assert_equal ["puma x1:2", "thin"], failed.map { |s| s["setup"] }.sort
    assert_match(/exited during boot/, failed.first["reason"])
    assert_match(/the app refuses to boot/, failed.first["log_tail"])
    assert_match(/FAILED puma x1:2/, err)
    refute_match(/^\s+from /, err, "no stack trace on the terminal")
  end

  def test_a_port_held_by_another_process_is_never_mistaken_for_the_server
    squatter = TCPServer.new("127.0.0.1", 0)
    port = squatter.addr[1]
    require "rackbench/server"
    require "rackbench/plan/setup"
    setup = Rackbench::Setup.parse("puma x1:1")
    instance = Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("puma"), setup: setup,
                                               app: Rackbench::Workload::Arena::CONFIG_RU, port: port, dir: tmpdir)
    e = assert_raises(Rackbench::SetupFailed) { instance.start }
    assert_match(/port #{port} on 127.0.0.1 is already in use by another process/, e.message)
  ensure
    squatter&.close
  end
end

# With no setups, every installed server of the default plan runs, scaled to the cores: Falcon
# and Pitchfork too.
class DefaultSetupsIntegrationTest < Minitest::Test
  def test_every_installed_server_runs_on_the_arena_app
    require "rackbench/server"
    require_tool!("passenger", Rackbench::Server.adapter("passenger").available?)
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "-e", "/hello", "-c", "4", "-d", "1", "--warmup", "0", "-o", dir)
    assert_equal 0, status, err
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal %w[falcon passenger pitchfork puma thin unicorn], trials.map { |t| t["server"] }.sort
    trials.each do |t|
      assert_operator t["requests"], :>, 0, t["setup"]
      # Puma 8 closes a keep-alive connection after 999 requests, and at
      # thousands of req/s wrk now and then records one read error around
      # it: allowed up to the default error budget (0.1%), no further.
      assert_operator t["error_total"], :<=, (t["requests"] * 0.001).ceil, "#{t['setup']}: #{t['errors']}"
      assert t["verified"], "#{t['setup']} was verified before load"
    end
    %w[puma unicorn thin passenger falcon pitchfork].each { |s| assert_match(/^#{s}/, out) }
    meta = JSON.parse(File.read(File.join(dir, "meta.json")))
    assert_equal Etc.nprocessors, meta["cores"]
    %w[puma unicorn thin passenger falcon pitchfork].each { |s| assert_match(/\A\d+\.\d+/, meta.dig("servers", s)) }
    assert_match(/\A\d/, meta.dig("engine", "version"))
  end
end

# "SERVER behind nginx": nginx started by rackbench as a reverse proxy.
class NginxFrontIntegrationTest < Minitest::Test
  def test_thin_behind_nginx
    require "rackbench/server/front/nginx"
    require_tool!("nginx", !Rackbench::Server::Front::Nginx.version.nil?)
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "-s", "thin behind nginx", "-e", "/server", "-c", "2", "-d", "1", "--warmup", "0",
                               "-o", dir)
    assert_equal 0, status, err
    trial = JSON.parse(File.readlines(File.join(dir, "trials.jsonl")).first)
    assert_operator trial["requests"], :>, 0
    assert_equal 0, trial["error_total"]
    front = File.readlines(File.join(dir, "setups.jsonl")).map { |l| JSON.parse(l) }.find { |s| s["front"] == "nginx" }
    assert_match(/\A1\.\d+\.\d+/, front["version"])
    assert_match(/proxy_pass http:\/\/app;/, front["config"])
    assert_match(/thin behind nginx/, out)
  end
end

# "SERVER behind thruster": Thruster (the gem's Go binary) in front, as Rails
# 8's Dockerfile runs it; sampled as the proxy, its accept queue read, stopped.
class ThrusterFrontIntegrationTest < Minitest::Test
  def test_puma_behind_thruster
    require "rackbench/server/front"
    thruster = Rackbench::Server::Front::Thruster
    require_tool!("thruster", thruster.available?)
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "-s", "puma x2:2 behind thruster", "-e", "/server", "-c", "4", "-d", "1",
                               "--warmup", "0", "-o", dir)
    assert_equal 0, status, err
    trial = JSON.parse(File.readlines(File.join(dir, "trials.jsonl")).first)
    assert_operator trial["requests"], :>, 50
    assert trial["verified"]
    # Puma 8.0.2 behind Thruster 0.1.27: about one request in 5,000 fails in
    # Thruster's Go client as a malformed response ("transport connection
    # broken: malformed HTTP status code"), and the client gets a 502: a
    # real failure, counted as one; more than a handful is breakage.
    log = File.join(dir, "logs", "puma_x2_2_behind_thruster-r1", "thruster", "thruster.log")
    assert_operator trial["error_total"], :<=, [2, trial["requests"] / 1000].max, File.read(log).lines.last(3).join
    if trial["error_total"].positive?
      assert_equal trial["error_total"], trial.dig("errors", "status"), "Thruster's 502s"
      assert_match(/"Unable to proxy request"/, File.read(log), "Thruster logs each one")
    end
    assert_operator trial.dig("queues", "front_accept", "samples"), :>, 0, "Thruster's accept queue read"
    assert_operator trial.dig("cpu", "proxy_pct"), :>, 1.0, "Thruster's own CPU sampled"
    assert_operator trial.dig("cpu", "server_pct"), :>, trial.dig("cpu", "proxy_pct"), "the proxy is part of the server's CPU"
    boots = File.readlines(File.join(dir, "setups.jsonl")).map { |l| JSON.parse(l) }
    front = boots.find { |s| s["front"] == "thruster" }
    server = boots.find { |s| s["server"] == "puma" }
    assert_equal thruster.version, front["version"]
    assert_match(/^TARGET_PORT=#{server['port']}$/, front["config"], "Thruster proxies to the Puma rackbench booted")
    assert_match(/^LOG_REQUESTS=false$/, front["config"])
    refute_equal server["port"], front["port"]
    assert_match(/puma x2:2 behind thruster/, out)
    assert File.exist?(File.join(dir, "logs", "puma_x2_2_behind_thruster-r1", "thruster", "thruster.log")), "its log in the run directory"
  end
end

# "on yjit": the runtime is part of the setup; the app's own /server says
# whether YJIT is on (a witness apart from rackbench's probe).
class RuntimeIntegrationTest < Minitest::Test
  def test_yjit_runtime_reaches_the_server_processes
    require "rackbench/server"
    require "rackbench/plan/setup"
    require "rackbench/ports"
    require "rackbench/runtime/flags"
    %w[puma\ x2:2\ on\ yjit passenger\ x1\ on\ yjit puma\ x1:2].each do |label|
      setup = Rackbench::Setup.parse(label)
      dir = tmpdir
      env = Rackbench::Runtime::Flags.env(setup, dir: dir, rubyopt: ENV.fetch("RUBYOPT", nil))
      instance = Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter(setup.server), setup: setup,
                                                 app: Rackbench::Workload::Arena::CONFIG_RU, env: env,
                                                 port: Rackbench::Ports.free, dir: dir, ready_path: "/health").start
      info = JSON.parse(Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/server").body)
      assert_equal setup.runtime == "yjit", info["yjit"], "#{label}: YJIT as the setup says"
    ensure
      instance&.stop
    end
  end
end

# A trial never waits behind requests a previous trial left queued.
class SettleIntegrationTest < Minitest::Test
  def test_a_low_level_after_a_high_one_is_not_stuck_behind_its_queue
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "-s", "unicorn x2", "-e", "/pause/0.2", "-c", "30,1", "-d", "1", "--warmup", "0",
                                "-q", "-o", dir)
    assert_equal 0, status, err
    c1 = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }.find { |t| t["concurrency"] == 1 }
    assert_operator c1["requests"], :>=, 3, "c=1 at 0.2 s a request runs at ~5 req/s"
    assert_equal 0, c1["error_total"]
  end
end
