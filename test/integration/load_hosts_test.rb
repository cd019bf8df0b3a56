# frozen_string_literal: true

require_relative "../faults/fault_helper"
require_relative "../support/sshd"
require "json"
require "rackbench/load/histogram_merge"
require "rackbench/system/process_tree"

# Load from other hosts, on one machine: two Debian sshd's on 127.0.0.2 and
# 127.0.0.3 (free ports, generated host keys, a key generated for the test,
# a known_hosts file the test writes), real `rackbench run` trials against a
# real Puma with load from both, and the ways a host can be unusable.
class LoadHostsTest < Minitest::Test
  def setup
    require_tool!("sshd", Rackbench::TestSshd.available?)
    require_tool!("wrk")
    @dir = tmpdir
    @daemons = []
  end

  def teardown
    @daemons.each(&:stop)
    super
  end

  def sshd(address, **opts)
    Rackbench::TestSshd.start(@dir, address: address, **opts).tap { |d| @daemons << d }
  end

  def key
    Rackbench::TestSshd.client_key(@dir)
  end

  def ssh_args(daemons, known_hosts: Rackbench::TestSshd.known_hosts(@dir, daemons), key: self.key)
    [*daemons.flat_map { |d| ["--load-host", d.spec] }, "--ssh-key", key, "--ssh-known-hosts", known_hosts]
  end

  def run_args(out, level)
    ["run", "-s", "puma x2:5", "-e", "/pause/0.05", *level, "-d", "1.5", "--warmup", "0", "--cooldown", "0", "-o", out, "-q"]
  end

  def trials(out)
    File.readlines(File.join(out, "trials.jsonl")).map { |l| JSON.parse(l) }
  end

  # The hosts' histograms, as they printed them into the trial's log.
  def logged_histograms(out, trial, key = "latency")
    File.read(File.join(out, "logs", trial["log"])).scan(/^RACKBENCH_HISTOGRAM (.*)$/).flatten
        .map { |line| JSON.parse(line).fetch(key) }
  end

  def assert_parts_add_up(trial, daemons)
    parts = trial["load_hosts"]
    assert_equal daemons.map(&:spec).sort, parts.map { |p| p["host"] }.sort
    assert_equal trial["requests"], parts.sum { |p| p["requests"] }, "merged requests = sum of the hosts' parts"
    parts.each do |p|
      assert_in_delta 0.5, p["share"], 1e-9
      assert_operator p["client_cpu"]["cpu_s"], :>, 0, "CPU read from the host's /proc"
      assert p["valid"], p.inspect
    end
    assert trial["valid"], trial["invalid_reason"].to_s
  end

  def assert_p99_from_summed_histogram(out, trial, parts)
    counts = Rackbench::Load::HistogramMerge.sum(logged_histograms(out, trial))
    assert_equal trial["requests"], counts.values.sum if trial["loop"] == "open"
    lat = trial["latency_ms"]
    p99 = Rackbench::Load::LogHistogram.percentile(counts, 99, min: lat["min"] * 1e6, max: lat["max"] * 1e6) / 1e6
    assert_in_delta p99, lat["p99"], 0.001, "merged p99 is the percentile of the summed histogram"
    assert_equal 2, parts.size
  end

  def test_closed_and_open_loop_trials_with_load_from_two_hosts
    daemons = [sshd("127.0.0.2"), sshd("127.0.0.3")]
    out = File.join(@dir, "closed")
    status, _, err = run_cli(*run_args(out, ["-c", "4"]), *ssh_args(daemons))
    assert_equal 0, status, err
    closed = trials(out).first
    assert_parts_add_up(closed, daemons)
    assert_equal [2, 2], closed["load_hosts"].map { |p| p["concurrency"] }
    assert_p99_from_summed_histogram(out, closed, closed["load_hosts"])
    # 4 connections on a 50 ms pause: about 80 req/s in all
    assert_in_delta 80, closed["rps"], 16

    out = File.join(@dir, "open")
    status, _, err = run_cli(*run_args(out, ["--rate", "100"]), "--bind", "127.0.0.4", *ssh_args(daemons))
    assert_equal 0, status, err
    refute_match(/Warning/, err, "a loopback --bind is no warning")
    booted = File.readlines(File.join(out, "setups.jsonl")).map { |l| JSON.parse(l) }.first
    assert_includes booted["argv"], "tcp://127.0.0.4:#{booted['port']}", "--bind: the server listens there"
    open = trials(out).first
    open["load_hosts"].each { |p| assert_includes p["command"], "http://127.0.0.4:#{booted['port']}/pause/0.05" }
    assert_parts_add_up(open, daemons)
    assert_equal [50.0, 50.0], open["load_hosts"].map { |p| p["rate"] }
    assert_in_delta 100, open["achieved_rate"], 5, "open-loop achieved rate = the target"
    open["load_hosts"].each { |p| assert_in_delta 50, p["achieved_rate"], 3 }
    assert_p99_from_summed_histogram(out, open, open["load_hosts"])
    assert_no_remote_leftovers
  end

  def assert_refused(args, pattern)
    out = File.join(@dir, "refused")
    status, stdout, err = run_cli(*run_args(out, ["-c", "2"]), *args)
    assert_equal 2, status, err
    assert_equal 1, err.lines.size, err
    assert_match(/\AError: #{pattern}/, err)
    assert_empty stdout
    refute File.exist?(File.join(out, "setups.jsonl")), "no server booted"
  end

  def test_bind_to_an_address_this_machine_lacks
    assert_refused(["--bind", "192.0.2.77"], /--bind "192.0.2.77" is not an address of this machine/)
  end

  def test_a_host_whose_sshd_is_down_is_named
    up, down = sshd("127.0.0.2"), sshd("127.0.0.3")
    args = ssh_args([up, down])
    down.stop
    assert_refused(args, /load host #{Regexp.escape(down.spec)}: connection refused/)
  end

  def test_a_host_without_wrk_is_named
    bare = sshd("127.0.0.3", without_wrk: true)
    assert_refused(ssh_args([sshd("127.0.0.2"), bare]), /load host #{Regexp.escape(bare.spec)}: wrk is not installed there/)
  end

  def test_a_wrong_key_is_refused_without_a_password_prompt
    host = sshd("127.0.0.2")
    other = File.join(@dir, "other_key")
    Rackbench::TestSshd.keygen(other)
    assert_refused(ssh_args([host], key: other), /load host #{Regexp.escape(host.spec)}: its sshd refused our keys/)
  end

  def test_a_changed_host_key_is_refused
    host = sshd("127.0.0.2")
    impostor = File.join(@dir, "impostor")
    Rackbench::TestSshd.keygen(impostor)
    known = File.join(@dir, "known_changed")
    File.write(known, "[127.0.0.2]:#{host.port} #{File.read("#{impostor}.pub").split[0, 2].join(' ')}\n")
    assert_refused(ssh_args([host], known_hosts: known), /load host #{Regexp.escape(host.spec)}: its host key does not match/)
  end

  def test_an_unknown_host_key_is_refused
    host = sshd("127.0.0.2")
    empty = File.join(@dir, "known_empty")
    File.write(empty, "")
    assert_refused(ssh_args([host], known_hosts: empty), /load host #{Regexp.escape(host.spec)}: its host key is not in/)
  end

  def test_doctor_checks_each_load_host
    up, down = sshd("127.0.0.2"), sshd("127.0.0.3")
    args = ssh_args([up, down])
    down.stop
    status, out, = run_cli("doctor", *args)
    assert_equal 1, status, out
    assert_match(/^ok\s+load host\s+#{Regexp.escape(up.spec)}: wrk 4\.\d+\.\d+, #{Etc.nprocessors} cores, clock [+-]\d+\.\d+ s from this machine's/, out)
    assert_match(/^FAIL\s+load host\s+#{Regexp.escape(down.spec)}: connection refused/, out)
  end

  # Every process the sshd's started (their sessions, any wrk) and every
  # directory rackbench made on the hosts.
  def remote_leftovers
    pids = @daemons.filter_map(&:pid)
    sessions = pids.flat_map { |pid| Rackbench::System::ProcessTree.tree(pid).map(&:pid) - [pid] }
    wrks = Rackbench::System::ProcessTree.all.select { |e| Rackbench::System::ProcessTree.cmdline(e.pid).to_s.include?("/tmp/rackbench-load.") }
    (sessions + wrks.map(&:pid)).uniq.map { |pid| "#{pid} #{Rackbench::System::ProcessTree.cmdline(pid)}" } +
      @made_dirs.to_a.select { |d| File.exist?(d) }
  end

  # sshd ends a session's processes after the ssh client has gone, not
  # with it: polled for up to 10 s, then whatever is left is a leftover.
  def assert_no_remote_leftovers(message = nil)
    deadline = Rackbench::Clock.now + 10
    left = remote_leftovers
    until left.empty? || Rackbench::Clock.now > deadline
      sleep 0.1
      left = remote_leftovers
    end
    assert_empty left, message
  end

  def test_sigint_mid_trial_leaves_nothing_running_on_any_host
    daemons = [sshd("127.0.0.2"), sshd("127.0.0.3")]
    out = File.join(@dir, "run")
    start_rackbench(*run_args(out, ["-c", "4"]).map { |a| a == "1.5" ? "4" : a }, *ssh_args(daemons))
    remote = nil
    @rb.wait_until(timeout: 60) do
      remote = Rackbench::System::ProcessTree.all.map { |e| Rackbench::System::ProcessTree.cmdline(e.pid).to_s }
                                                   .grep(%r{\Awrk .*/tmp/rackbench-load\.})
      remote.size == 2
    end
    @made_dirs = remote.map { |cmd| cmd[%r{/tmp/rackbench-load\.[^/ ]+}] }
    Process.kill("INT", -@rb.pid)
    @rb.wait(timeout: 30)
    assert_equal 130, @rb.exit_code, @rb.stderr
    assert_match(/^Interrupted by SIGINT/, @rb.stderr)
    assert_no_remote_leftovers("no wrk, session or directory left on any host")
    assert_empty @rb.survivors
  end
end
