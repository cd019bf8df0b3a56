# frozen_string_literal: true

require_relative "fault_helper"

# Faults around the run itself: signals, the disk, missing tools, and resume.
class FaultRunTest < Minitest::Test
  PAUSE_RUN = ["-s", "puma x1:4", "-s", "unicorn x2", "-e", "/pause/0.05", "-c", "2,4", "-d", "1", "--warmup", "0"].freeze

  def interrupt_after_first_trial(signal)
    out = File.join(tmpdir, "run")
    start_rackbench("run", *PAUSE_RUN, "-o", out)
    @rb.wait_until { read_trials(out).size >= 1 }
    @rb.signal(signal)
    out
  end

  # Sent while the second trial's load runs: that trial is named as cut short.
  def test_sigint_stops_cleanly_and_keeps_completed_trials
    out = File.join(tmpdir, "run")
    start_rackbench("run", *PAUSE_RUN, "-o", out)
    @rb.wait_until { read_trials(out).size >= 1 && @rb.load_running? }
    @rb.signal("INT")
    assert_fault_outcome(exit_code: 130, message: /Interrupted by SIGINT: servers stopped; completed trials are kept in .*--resume .*; the trial under way \((puma x1:4|unicorn x2) \/pause\/0\.05 c=[24], round 1\) was not stored: the resume measures it again$/,
                         run_dir: out, min_trials: 1)
    cut = @rb.stderr[/the trial under way \((.+) (\S+) c=(\d), round 1\)/] && [$1, $2, $3.to_i]
    refute_includes read_trials(out).map { |t| [t["setup"], t["endpoint"], t["concurrency"]] }, cut
  end

  def test_sigterm_stops_cleanly_and_keeps_completed_trials
    out = interrupt_after_first_trial("TERM")
    assert_fault_outcome(exit_code: 143, message: /Interrupted by SIGTERM/, run_dir: out, min_trials: 1)
  end

  def test_resume_finishes_an_interrupted_run_with_the_same_table
    out = interrupt_after_first_trial("INT")
    @rb.wait
    before = read_trials(out).map { |t| t["key"] }
    start_rackbench("run", "--resume", out)
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 4,
                         silent: "a resume that completes is a clean run: its progress counts on from the stored trials")
    assert_match(%r{\A  \[#{before.size + 1}/4\] }, @rb.stderr.lines.grep(%r{\A  \[\d+/4\] }).first, "counted on, not from 1")
    keys = read_trials(out).map { |t| t["key"] }
    assert_equal 4, keys.size, "every trial exactly once"
    assert_equal keys.uniq, keys
    assert_equal before, keys.first(before.size), "stored trials were kept, not re-run"
    meta = JSON.parse(File.read(File.join(out, "meta.json")))
    assert_equal before.size, meta["resumed"].first["trials_stored"]
    %w[puma\ x1:4 unicorn\ x2].each { |s| assert_match(/^#{Regexp.escape(s)}\s+\d/, @rb.stdout) }
  end

  def test_unwritable_output_directory
    file = File.join(tmpdir, "a-file")
    File.write(file, "")
    start_rackbench("run", *PAUSE_RUN, "-o", File.join(file, "run"))
    assert_fault_outcome(exit_code: 1, message: /Error: cannot write the run directory .*choose another with --out DIR/)
  end

  def test_disk_full_at_the_first_trial_write
    out = File.join(tmpdir, "run")
    start_rackbench("run", *PAUSE_RUN, "-o", out)
    # A directory holding trials.jsonl but no meta.json is refused up front,
    # so the full "disk" is put in place once the run has written meta.json
    # (before its first trial ends): a /dev/full node at the file's own path
    # (a link to /dev/full is refused, as every link is: link_faults_test.rb).
    @rb.wait_until { File.exist?(File.join(out, "meta.json")) }
    skip "mknod c 1 7 needs root (CAP_MKNOD)" unless system("mknod", File.join(out, "trials.jsonl"), "c", "1", "7")
    assert_fault_outcome(exit_code: 1, message: /Error: cannot append to .*trials.jsonl: No space left on device/)
    JSON.parse(File.read(File.join(out, "meta.json"))) # meta.json is whole, not half-written
  end

  def test_wrk_missing_from_path
    start_rackbench("run", *PAUSE_RUN, "-o", File.join(tmpdir, "run"), env: { "PATH" => "/nonexistent" })
    assert_fault_outcome(exit_code: 1, message: /Error: wrk not found on PATH: run bin\/setup/)
  end

  # capacity too refuses before it makes a run directory or boots a server.
  def test_wrk_missing_from_path_for_capacity
    out = File.join(tmpdir, "cap")
    start_rackbench("capacity", "-s", "puma x1:2", "-e", "/pause/0.05", "--slo-p99", "500ms", "-o", out,
                    env: { "PATH" => "/nonexistent" })
    assert_fault_outcome(exit_code: 1, message: /Error: wrk not found on PATH: run bin\/setup/)
    refute File.exist?(out), "no run directory made"
  end

  def test_ab_and_siege_missing_from_path
    { "ab" => /Error: ab not found on PATH: run bin\/setup \(or apt-get install apache2-utils\)/,
      "siege" => /Error: siege not found on PATH: run bin\/setup \(or apt-get install siege\)/ }.each do |engine, message|
      start_rackbench("run", *PAUSE_RUN, "--engine", engine, "-o", File.join(tmpdir, "run"), env: { "PATH" => "/nonexistent" })
      assert_fault_outcome(exit_code: 1, message: message)
    end
  end

  def test_nginx_missing
    start_rackbench("run", "-s", "thin behind nginx", "-e", "/hello", "-o", File.join(tmpdir, "run"),
                    env: { "RACKBENCH_NGINX" => "/nonexistent/nginx" })
    assert_fault_outcome(exit_code: 1, message: /Error: nginx not found \(needed by "behind nginx" setups\): run bin\/setup/)
  end

  def test_thruster_missing
    start_rackbench("run", "-s", "puma x1:2 behind thruster", "-e", "/hello", "-o", File.join(tmpdir, "run"),
                    env: { "RACKBENCH_THRUSTER" => "/nonexistent/thrust" })
    assert_fault_outcome(exit_code: 1, message: /Error: thruster not found \(needed by "behind thruster" setups\): run bin\/setup/)
  end

  # Thruster listens on every address: a port held on 127.0.0.1 stops it too.
  def test_a_port_taken_in_front_of_thruster_is_named
    holder = TCPServer.new("127.0.0.1", 0)
    port = holder.addr[1]
    start_rackbench("run", "-s", "puma x1:2 behind thruster", "-e", "/hello", "-c", "1", "-d", "0.5", "--warmup", "0",
                    "--port", port, "-o", File.join(tmpdir, "run"))
    assert_fault_outcome(exit_code: 1, on: :stdout,
                         message: /\AFAILED puma x1:2 behind thruster \(repetition 1\): thruster could not listen on port #{port}: the port is already in use/)
  ensure
    holder&.close
  end

  # The port nginx should listen on is held by another process: named as such.
  def test_a_port_taken_in_front_of_nginx_is_named
    holder = TCPServer.new("127.0.0.1", 0)
    port = holder.addr[1]
    start_rackbench("run", "-s", "thin behind nginx", "-e", "/hello", "-c", "1", "-d", "0.5", "--warmup", "0", "--port", port,
                    "-o", File.join(tmpdir, "run"))
    assert_fault_outcome(exit_code: 1, on: :stdout,
                         message: /\AFAILED thin behind nginx \(repetition 1\): nginx could not listen on 127\.0\.0\.1:#{port}: the port is already in use/)
  ensure
    holder&.close
  end
end

# Bad input never starts anything: one line with the accepted values.
class FaultInputTest < Minitest::Test
  def plan(text)
    path = File.join(tmpdir, "plan.rb")
    File.write(path, text)
    path
  end

  CASES = {
    "negative duration" => [%w[run --duration -1], /--duration must be a number of seconds >= 0.5 \(got "-1"\)/],
    "concurrency 0" => [%w[run --concurrency 0], /--concurrency must be a whole number from 1 to 10000 \(got "0"\)/],
    "unknown server" => [["run", "--setup", "pumba x2:5"], /unknown server "pumba".*did you mean "puma".*accepted servers: puma, unicorn, thin, passenger/],
    "zero workers" => [["run", "--setup", "puma x0:5"], /workers must be 1\.\.256 \(got 0\)/],
    "misspelt option" => [%w[run --duraton 2], /unknown option --duraton \(did you mean "--duration"\?\)/],
    # Round 2 (issue 25): refused before anything boots, in one line.
    "zero timeout" => [%w[run --timeout 0], /--timeout must be a number of seconds above 0, at least 0.001 \(got "0"\): a shorter timeout fails every request/],
    "zero boot timeout" => [%w[run --boot-timeout 0], /--boot-timeout must be .* above 0, at least 0.1 .*fails every boot/],
    "zero health timeout" => [%w[run --health-timeout 0], /--health-timeout must be .* above 0, at least 0.001 .*fails every health check/],
    "a 31-year trial" => [%w[run -d 1e9], /--duration "1e9" is over a day \(86400 s\)/],
    "hexadecimal duration" => [%w[run -d 0x10], /--duration must be a number of seconds >= 0.5 \(got "0x10"\)/],
    "ten thousand rounds" => [%w[run -r 10000], /--repeat must be a whole number from 1 to 1000 \(got "10000"\)/],
    "a space in an endpoint" => [["run", "-e", "/he llo"], /endpoint "\/he llo" holds " " at position 4: write it percent-encoded \(%20\)/],
    "margin of zero" => [%w[run --margin 0], /--margin must be a percentage above 0 and below 100/],
    "decide one setup" => [["run", "--decide", "-s", "puma x1:2"], /--decide compares setups: give 2 or more/],
    "one max round" => [%w[run --max-rounds 1], /--max-rounds must be a whole number of 2 or more/],
    # Issue 37: --ref's bad input, refused before anything boots.
    "one ref" => [["run", "--app", "/srv/app", "--ref", "main"], /--ref main alone compares nothing: give two or more/],
    "a ref without an app" => [%w[run --ref main --ref HEAD], /--ref compares commits of your app: give --app PATH/],
    "a gate without refs" => [%w[run --fail-if-slower 5], /--fail-if-slower on a run gates a change of your app: add --ref BASE --ref HEAD/],
    # Issue 32: a stopping design that cannot decide anything within --max-rounds.
    "decide in two rounds" => [["run", "--decide", "-s", "puma x1:2", "-s", "puma x1:4", "--max-rounds", "2"],
                               /--max-rounds 2 cannot reach a decision within --margin 5 under --decide's stopping rule .*: give --max-rounds 3 or more/],
    "decide at a 0.5% margin in three" => [["run", "--decide", "-s", "puma x1:2", "-s", "puma x1:4", "--margin", "0.5", "--max-rounds", "3"],
                                           /--max-rounds 3 cannot reach a decision .*: give --max-rounds \d+ or more/],
    # Issue 46, item 4: a margin no --max-rounds can decide within, refused at once (silent for minutes before).
    "decide at a 0.01% margin" => [["run", "--decide", "-s", "puma x1:2", "-s", "puma x1:4", "--margin", "0.01"],
                                   /--margin 0.01 is too small: no --max-rounds from 20 to 1000 can reach a decision within it .*give --margin 0.067 or more/],
    "negative scenario weight" => [["run", "--scenario", "/hello:-2,/health:1"],
                                   %r{--scenario "/hello:-2,/health:1": the weight of /hello must be above 0 \(got -2\)}],
    "a hundred thousand max rounds" => [%w[run --max-rounds 100000], /--max-rounds must be a whole number of 2 or more, at most 1000/],
    "a nanosecond timeout" => [%w[run --timeout 1e-9], /--timeout must be a number of seconds above 0, at least 0.001 \(got "1e-9"\)/],
    "a nanosecond boot timeout" => [%w[run --boot-timeout 1e-9], /--boot-timeout must be .* at least 0.1 .*fails every boot/],
    "a nanosecond health timeout" => [%w[run --health-timeout 1e-9], /--health-timeout must be .* at least 0.001 .*health check/],
    # Issue 28: --tls with a setup that cannot serve it, or with h2load.
    "tls on unicorn" => [["run", "--tls", "-s", "unicorn x2"], /--tls: unicorn x2: Unicorn serves no TLS .*-s "unicorn x2 behind nginx"/],
    "tls behind thruster" => [["run", "--tls", "-s", "puma x2:5 behind thruster"], /Thruster serves TLS only with a certificate it obtains from Let's Encrypt/],
    "h2 over tls on puma" => [["run", "--tls", "--engine", "h2load", "-s", "puma x2:2"],
                              /--engine h2load speaks HTTP\/2 over TLS \(h2, negotiated by ALPN\), which puma x2:2 cannot serve: only falcon, itsi/]
  }.freeze

  CASES.each do |name, (argv, message)|
    define_method("test_#{name.tr(' ', '_')}") do
      status, _out, err = run_cli(*argv)
      assert_equal 2, status
      assert_equal 1, err.lines.size
      assert_match message, err
    end
  end

  def test_plan_syntax_error
    status, _out, err = run_cli("run", plan("setup \"puma x1:2\"\nconcurrency 1,\n"))
    assert_equal [2, 1], [status, err.lines.size]
    assert_match(/plan\.rb:\d+ has a Ruby syntax error/, err)
  end

  def test_plan_unknown_keyword
    status, _out, err = run_cli("run", plan("setup \"puma x1:2\"\nendpont \"/\"\n"))
    assert_equal 2, status
    assert_match(/plan\.rb:2: unknown keyword "endpont" \(did you mean "endpoint"\?\); accepted:/, err)
  end

  def test_plan_files_that_are_not_plans
    { "\x7FELF\x02\x01\x00\xFF".b => /is not text \(a binary byte at offset \d+\)/,
      %(require "nope_not_here"\n) => /requires what cannot be loaded: cannot load such file -- nope_not_here/,
      "exit 0\n" => /calls exit; a plan file only sets settings/,
      "" => /sets nothing/ }.each do |text, message|
      path = File.join(tmpdir, "plan.rb")
      File.binwrite(path, text)
      status, _out, err = run_cli("run", path)
      assert_equal [2, 1], [status, err.lines.size], err
      assert_match message, err
    end
  end

  # Exceptions outside StandardError, exit!, and processes a plan leaves
  # running: one line each, exit 2, nothing left behind (a real process:
  # exit! and fork act on it).
  def test_plans_that_raise_exit_at_once_or_leave_processes
    { "def f = f\nf\n" => /plan\.rb:\d raised SystemStackError: stack level too deep/,
      "setup \"puma x1:1\"\nraise NoMemoryError, \"failed to allocate memory\"\n" => /plan\.rb:2 raised NoMemoryError/,
      "raise Interrupt\n" => /plan\.rb:1 raised Interrupt/,
      "setup \"puma x1:1\"\nexit! 5\n" => /plan\.rb:2 calls exit!; a plan file only sets settings/,
      "setup \"puma x1:1\"\nfork { $0 = \"rackbench-test-plan-fork\"; sleep 600 }\n" =>
        /started 1 process\(es\) still running once it was read \(\d+ rackbench-test-plan-fork\); rackbench stopped them/,
      "setup \"puma x1:1\"\nfork { Process.daemon(true, true); exec({}, %w[sleep rackbench-test-plan-fork], \"600\", " \
      "unsetenv_others: true) }\nsleep 0.5\n" => /started 1 process\(es\) still running .*rackbench-test-plan-fork 600/ }.each do |text, message|
      start_rackbench("run", plan(text))
      assert_fault_outcome(exit_code: 2, message: /\AError: plan file .*#{message.source}/)
      assert_empty Rackbench::System::ProcessTree.all.select { |e| Rackbench::System::ProcessTree.cmdline(e.pid).include?("rackbench-test-plan-fork") }
    end
  end

  # Hand-edited or replaced run files, read by a real rackbench: one line
  # naming the file (and line), exit 1, never exit 70 or a resume blocked
  # for good on a FIFO.
  def test_hand_edited_run_files_are_one_line
    fake = lambda do
      dir = File.join(tmpdir, "fake")
      status, _out, err = run_cli("run", "--engine", "fake", "--url", "http://127.0.0.1:9", "--no-verify", "-e", "/a",
                                  "-c", "1,2", "-d", "1", "--warmup", "0", "-q", "-o", dir)
      assert_equal 0, status, err
      dir
    end
    sub = ->(dir, name, from, to) { File.write(File.join(dir, name), File.read(File.join(dir, name)).sub(from, to)) }
    edits = {
      ["report", ->(d) { sub.call(d, "trials.jsonl", '"mean":', '"mean":"x","was":') }] =>
        /trials\.jsonl line 1 is not a trial record: latency_ms\.mean is "x", not a number/,
      ["run --resume", ->(d) { sub.call(d, "meta.json", /"rackbench": *"[^"]*"/, '"rackbench":"0.0.1"') }] =>
        /was made by rackbench 0\.0\.1, not this rackbench/,
      ["run --resume", ->(d) { FileUtils.rm_f(File.join(d, "samples.jsonl")) && File.mkfifo(File.join(d, "samples.jsonl")) }] =>
        /samples\.jsonl is not a regular file \(fifo\)/
    }
    edits.each do |(command, edit), message|
      dir = fake.call
      edit.call(dir)
      again = command.include?("--resume") ? ["--url", "http://127.0.0.1:9"] : [] # the run's server, named again (CLI::ResumeTrust)
      start_rackbench(*command.split, dir, *again)
      assert_fault_outcome(exit_code: 1, message: /\AError: .*#{message.source}/)
    end
  end

  # The run directory is the record: report never writes over it, and a
  # damaged record is one line naming file and line, never exit 70.
  def test_report_and_compare_guard_the_run_directory
    require_relative "../unit/report/run_fixture"
    dir = Rackbench::RunFixture.full_run(File.join(tmpdir, "run"))
    trials = File.read(File.join(dir, "trials.jsonl"))
    status, _out, err = run_cli("report", dir, "--format", "csv", "-o", File.join(dir, "trials.jsonl"))
    assert_equal 2, status
    assert_match(/is one of the run's own files; write the rendering elsewhere/, err)
    assert_equal trials, File.read(File.join(dir, "trials.jsonl"))
    File.write(File.join(dir, "trials.jsonl"), trials.sub(/"setup":"puma x2:3"/, '"setup":42'))
    [["report", dir], ["report", dir, "--format", "json"], ["compare", dir, dir]].each do |argv|
      status, _out, err = run_cli(*argv)
      assert_equal 1, status, argv.inspect
      assert_match(/trials.jsonl line \d+ is not a trial record: setup is 42, not a string; fix or delete that line/, err)
    end
    File.delete(File.join(dir, "trials.jsonl"))
    File.write(File.join(dir, "samples.jsonl"), %({"key":"puma x2:3|/x|8|1","t":0.0}\n))
    status, out, err = run_cli("report", dir)
    assert_equal [1, ""], [status, out]
    assert_match(/trials.jsonl is missing, though samples.jsonl holds the samples of trials that ended/, err)
    File.mkfifo(File.join(dir, "trials.jsonl"))
    status, _out, err = run_cli("report", dir)
    assert_equal 1, status
    assert_match(/trials.jsonl is not a regular file \(fifo\)/, err)
  end

  def test_plan_wrong_types
    status, _out, err = run_cli("run", plan("setup \"puma x1:2\"\nduration [1]\nrepeat \"x\"\n"))
    assert_equal 2, status
    assert_match(/--duration must be a number of seconds/, err)
  end
end
