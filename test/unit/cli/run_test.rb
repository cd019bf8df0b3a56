# frozen_string_literal: true

require "test_helper"
require "json"
require "socket"

# The whole pipeline with the fake engine against --url: no process is
# spawned, so these run in milliseconds.
class CliRunTest < Minitest::Test
  def test_url_mode_stores_every_trial_and_prints_the_table
    out_dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "--engine", "fake", "--url", "http://127.0.0.1:9", "--no-verify", "-e", "/hello", "-e", "/x",
                               "-c", "1,4", "-d", "1", "--warmup", "0", "-o", out_dir)
    assert_equal 0, status, err
    trials = File.readlines(File.join(out_dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal 4, trials.size
    t = trials.first
    %w[setup server workers threads endpoint concurrency duration_s requests rps latency_ms errors].each do |k|
      assert t.key?(k), "trial lacks #{k}"
    end
    assert_equal %w[connect read status timeout write], t["errors"].keys.sort
    assert_operator t["requests"], :>, 0
    meta = JSON.parse(File.read(File.join(out_dir, "meta.json")))
    assert_equal 4, meta.dig("plan", "trials")
    assert_equal "fake", meta.dig("engine", "name")
    assert_match(%r{^/hello\s+c=1\s+c=4$}, out)
    assert_match(/closed-loop/, out)
    assert_match(/Run directory: #{Regexp.escape(out_dir)}/, err)
  end

  FAKE_RUN = ["run", "--engine", "fake", "--url", "http://127.0.0.1:9", "--no-verify", "-e", "/hello", "-c", "1", "-d", "1",
              "--warmup", "0", "-q"].freeze

  # Issue 46, C9: $GITHUB_STEP_SUMMARY is appended to when it is a file; a
  # FIFO (no reader: opening it would wait for good), a directory or a
  # socket is one warning line, and the run ends as it would.
  def test_the_step_summary_is_appended_to_a_file_and_never_waits_on_a_fifo
    summary = File.join(tmpdir, "summary.md")
    File.write(summary, "before\n")
    status, _out, err = run_cli(*FAKE_RUN, "-o", File.join(tmpdir, "run"), env: { "GITHUB_STEP_SUMMARY" => summary })
    assert_equal [0, []], [status, err.lines.grep(/warning/i)], err
    assert_match(/\Abefore\n.*\/hello/m, File.read(summary))
    fifo = File.join(tmpdir, "fifo")
    File.mkfifo(fifo)
    socket = UNIXServer.new(File.join(tmpdir, "sock"))
    { fifo => "fifo", tmpdir => "directory", socket.path => "socket" }.each do |path, type|
      runner = Thread.new { run_cli(*FAKE_RUN, "-o", File.join(tmpdir, "run"), env: { "GITHUB_STEP_SUMMARY" => path }) }
      assert runner.join(30), "the run waited on $GITHUB_STEP_SUMMARY, a #{type} (30 s deadline)"
      status, _out, err = runner.value
      assert_equal 0, status, err
      assert_equal ["Warning: $GITHUB_STEP_SUMMARY (#{path}) is a #{type}, not a file: the job summary was not written; " \
                    "point it at a file\n"], err.lines.grep(/warning/i)
    ensure
      runner&.kill
    end
  ensure
    socket&.close
  end

  def test_plan_file_and_command_line_layer
    plan = File.join(tmpdir, "plan.rb")
    File.write(plan, "url \"http://127.0.0.1:9\"\nendpoint \"/a\"\nconcurrency 2\nduration 5\nengine \"fake\"\nwarmup 0\nverify false\n")
    out_dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", plan, "-d", "1", "-o", out_dir, "-q")
    assert_equal 0, status, err
    meta = JSON.parse(File.read(File.join(out_dir, "meta.json")))
    assert_in_delta 1.0, meta.dig("plan", "duration_s")
    assert_equal [2], meta.dig("plan", "concurrency")
    refute_match(/\[1\/1\]/, err, "--quiet shows no progress")
  end

  def test_bad_input_is_one_line_and_exit_2
    [
      [%w[run --setup pumma], /unknown server "pumma".*did you mean "puma"/],
      [%w[run --setup puma\ x0:5], /workers must be 1\.\.256/],
      [%w[run --duration -1], /--duration must be a number/],
      [%w[run --concurrency 0], /--concurrency must be a whole number/],
      [%w[run --concurency 1], /unknown option --concurency \(did you mean "--concurrency"\?\)/],
      [%w[run --engine wrx], /unknown load engine "wrx" \(did you mean "wrk"\?\)/],
      [%w[runn], /unknown command "runn" \(did you mean "run"\?\)/],
      [%w[rn], /unknown command "rn" \(did you mean "run"\?\)/],
      [%w[run -e /fibonaci/25], %r{the built-in arena app does not serve /fibonaci/25; its endpoints: /hello, .*/fibonacci/:n}],
      [%w[run --scenario /hello:3,/nope:1], %r{does not serve /nope; its endpoints: }],
      [%w[run --url 127.0.0.1:3000], /--url "127.0.0.1:3000" must be an http:\/\/ URL/],
      [%w[run --url http://127.0.0.1:9/a -e /b], %r{--url http://127.0.0.1:9/a already names the endpoint /a}],
      [%w[run --app /nonexistent/config.ru], /--app .* must be a config.ru file/]
    ].each do |argv, message|
      out_dir = File.join(tmpdir, "run")
      spawned = Rackbench::ProcessControl::Registry.history.size
      status, _out, err = run_cli(*argv, *(argv.first == "run" ? ["-o", out_dir] : []))
      assert_equal 2, status, "#{argv.inspect}: #{err}"
      refute File.exist?(out_dir), "#{argv.inspect} left a run directory behind"
      assert_equal spawned, Rackbench::ProcessControl::Registry.history.size, "#{argv.inspect} started a process"
      assert_match message, err
      assert_equal 1, err.lines.size, "#{argv.inspect} printed #{err.inspect}"
      assert err.start_with?("Error: ")
    end
  end

  def test_unwritable_out_dir
    file = File.join(tmpdir, "f")
    File.write(file, "")
    status, _out, err = run_cli("run", "--engine", "fake", "--url", "http://127.0.0.1:9", "-e", "/", "-o", File.join(file, "run"))
    assert_equal 1, status
    assert_match(/Error: cannot write the run directory .* choose another with --out DIR/, err)
  end

  def test_help_and_version
    status, out, = run_cli("run", "--help")
    assert_equal 0, status
    assert_match(/--setup LABEL/, out)
    assert_match(/--concurrency LIST/, out)
    assert_equal [0, "rackbench #{Rackbench::VERSION}\n"], run_cli("--version").first(2)
  end
end
