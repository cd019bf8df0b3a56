# frozen_string_literal: true

require "test_helper"
require "json"
require_relative "run_fixture"
require "rackbench/store/run_dir"

# Reading a damaged run directory: report, compare and run --resume name the
# file and line (exit 1, one line), never crash (exit 70) or skip silently.
class CliDamagedRunTest < Minitest::Test
  def run_dir
    Rackbench::RunFixture.full_run(File.join(tmpdir, "run"))
  end

  # A run the fake engine wrote (it can be resumed), with one trial to go.
  def fake_run
    dir = File.join(tmpdir, "fake")
    status, _out, err = run_cli("run", "--engine", "fake", "--url", "http://127.0.0.1:9", "--no-verify", "-e", "/a",
                                "-c", "1,2", "-d", "1", "--warmup", "0", "-q", "-o", dir)
    assert_equal 0, status, err
    dir
  end

  # A run made with --url is resumed naming its server again (CLI::ResumeTrust).
  def resume(dir) = ["run", "--resume", dir, "--url", "http://127.0.0.1:9"]

  def damage(dir, file, line)
    path = File.join(dir, file)
    rows = File.readlines(path)
    File.write(path, ([rows.first, "#{line}\n"] + rows.drop(1)).join)
    path
  end

  def test_a_line_that_is_not_a_record_is_one_line_error_in_report_compare_and_resume
    ["[]", "42", "{\"key\":1}"].each do |bad|
      dir = run_dir
      path = damage(dir, "trials.jsonl", bad)
      resumable = fake_run
      resumable_path = damage(resumable, "trials.jsonl", bad)
      [["report", dir], ["compare", dir, run_dir], resume(resumable)].each do |argv|
        path = resumable_path if argv.first == "run"
        status, _out, err = run_cli(*argv)
        assert_equal 1, status, "#{argv.first} on #{bad}: #{err}"
        assert_equal "Error: #{path} line 2 is not a trial record (#{bad}); fix or delete that line\n", err
      end
    end
  end

  def test_a_damaged_setups_line_is_named_too
    dir = run_dir
    path = damage(dir, "setups.jsonl", "{\"setup\":")
    status, _out, err = run_cli("report", dir)
    assert_equal 1, status
    assert_match(/\AError: #{Regexp.escape(path)} line 2 is not JSON/, err)
  end

  def test_a_cut_short_last_line_is_reported_as_a_warning
    dir = run_dir
    File.write(File.join(dir, "trials.jsonl"), "{\"setup\":\"pu", mode: "a")
    status, out, err = run_cli("report", dir)
    assert_equal 0, status, err
    assert_match(/^puma x2:3/, out)
    assert_match(/\AWarning: .*trials.jsonl line \d+ was cut short \(a crash while writing it\) and is left out\n\z/, err)
  end

  def edit_json(path)
    value = JSON.parse(File.read(path))
    yield value
    File.write(path, JSON.generate(value))
  end

  def edit_first_trial(dir, &edit)
    path = File.join(dir, "trials.jsonl")
    rows = File.readlines(path).map { |l| JSON.parse(l) }
    edit.call(rows.first)
    File.write(path, rows.map { |r| "#{JSON.generate(r)}\n" }.join)
    path
  end

  # Nested wrong types and numbers beyond any measurement: one line naming
  # file, line and field, exit 1, in report, compare and resume (exit 70 before).
  def test_hand_edited_figures_are_one_line_naming_file_line_and_field
    { ->(t) { t["latency_ms"]["mean"] = "x" } => 'latency_ms.mean is "x", not a number',
      ->(t) { t["rps"] = 1e308 } => "rps is 1.0e+308, beyond any measurement",
      ->(t) { t["machine"] = { "cpu_pct" => "x", "foreign_pct" => "y" } } => 'machine.cpu_pct is "x", not a number',
      ->(t) { t["cpu"] = { "server_pct" => "x", "cores" => "two" } } => 'cpu.server_pct is "x", not a number' }.each do |edit, field|
      dir = run_dir
      path = edit_first_trial(dir, &edit)
      resumable = fake_run
      resumable_path = edit_first_trial(resumable, &edit)
      [["report", dir], ["compare", dir, run_dir], resume(resumable)].each do |argv|
        status, _out, err = run_cli(*argv)
        assert_equal 1, status, "#{argv.first}, #{field}: #{err}"
        assert_equal "Error: #{argv.first == 'run' ? resumable_path : path} line 1 is not a trial record: #{field}; " \
                     "fix or delete that line\n", err
      end
    end
  end

  # Issue 46, N27: the diagnostics sections of a trial (queues, balance)
  # of the wrong type are one line naming file, line and field (exit 70 before).
  def test_hand_edited_queues_and_balance_are_one_line_naming_the_field
    { ->(t) { t["queues"] = "x" } => 'queues is "x", not a JSON object',
      ->(t) { t["queues"] = { "server" => 3 } } => "queues.server is 3, not a JSON object",
      ->(t) { t["queues"] = { "accept" => { "mean" => "m" } } } => 'queues.accept.mean is "m", not a number',
      ->(t) { t["queues"] = { "waiting_mean" => "w" } } => 'queues.waiting_mean is "w", not a number',
      ->(t) { t["balance"] = 42 } => "balance is 42, not a JSON object",
      ->(t) { t["balance"] = { "spread" => "s" } } => 'balance.spread is "s", not a number',
      ->(t) { t["balance"] = { "workers" => ["a"] } } => 'balance.workers[0] is "a", not a JSON object',
      ->(t) { t["balance"] = { "workers" => [{ "cpu_pct" => "x" }] } } => 'balance.workers[0].cpu_pct is "x", not a number' }.each do |edit, field|
      dir = run_dir
      path = edit_first_trial(dir, &edit)
      %w[table html md csv json].each do |format|
        status, _out, err = run_cli("report", dir, "-f", format)
        assert_equal ["Error: #{path} line 1 is not a trial record: #{field}; fix or delete that line\n", 1], [err, status], format
      end
      status, _out, err = run_cli("compare", run_dir, dir)
      assert_equal ["Error: #{path} line 1 is not a trial record: #{field}; fix or delete that line\n", 1], [err, status]
    end
  end

  # Issue 46, N34: a meta.json config.app that is not a path is one line
  # naming file and key, in report, compare and resume (resume: exit 70 before).
  def test_a_config_app_of_the_wrong_type_is_one_line
    [42, [1], { "a" => 1 }, true].each do |app|
      dir = run_dir
      edit_json(File.join(dir, "meta.json")) { |m| m["config"] = { "app" => app } }
      resumable = fake_run
      edit_json(File.join(resumable, "meta.json")) { |m| m["config"]["app"] = app }
      [["report", dir], ["compare", dir, run_dir], ["compare", run_dir, dir], resume(resumable)].each do |argv|
        status, _out, err = run_cli(*argv)
        file = argv.first == "run" ? resumable : dir
        assert_equal ["Error: #{file}/meta.json is damaged: config.app is #{app.inspect}, not a string; restore it, or " \
                      "run again with another --out\n", 1], [err, status], argv.first
      end
    end
  end

  # Issue 46, P8: a blank line (an editor's trailing newline) is no record
  # and no damage: report, compare and resume read the run as it is.
  def test_blank_lines_are_accepted
    dir = run_dir
    path = File.join(dir, "trials.jsonl")
    rows = File.readlines(path)
    File.write(path, "#{rows.first}\n  \n#{rows.drop(1).join}\n")
    assert_equal rows.size, Rackbench::Store::RunDir.open(dir).raw_trials.size
    resumable = fake_run
    File.write(File.join(resumable, "trials.jsonl"), "\n", mode: "a")
    [["report", dir], ["compare", dir, run_dir], resume(resumable)].each do |argv|
      status, _out, err = run_cli(*argv)
      assert_equal 0, status, "#{argv.first}: #{err}"
      refute_match(/^(Error|Warning)/, err, argv.first)
    end
  end

  # Issue 46, C4: a trials.jsonl that links to itself (ELOOP) is an error
  # naming the file, never "no trials".
  def test_a_self_linked_trials_file_is_an_error
    dir = run_dir
    path = File.join(dir, "trials.jsonl")
    File.delete(path)
    File.symlink(path, path)
    [["report", dir], ["compare", dir, run_dir]].each do |argv|
      status, _out, err = run_cli(*argv)
      assert_equal ["Error: cannot read #{path}: Too many levels of symbolic links\n", 1], [err, status], argv.first
    end
    # A run without setups.jsonl (a --url run) was said to hold nothing measured.
    File.delete(File.join(dir, "setups.jsonl"))
    status, _out, err = run_cli("report", dir)
    assert_equal ["Error: cannot read #{path}: Too many levels of symbolic links\n", 1], [err, status], "no setups.jsonl"
  end

  def test_a_meta_json_of_the_wrong_shape_is_one_line
    dir = run_dir
    edit_json(File.join(dir, "meta.json")) { |m| m["config"] = "x" }
    status, _out, err = run_cli("report", dir)
    assert_equal 1, status
    assert_equal "Error: #{dir}/meta.json is damaged: config is \"x\", not a JSON object; restore it, or run again with " \
                 "another --out\n", err
  end

  # A resume needs the plan, and the version that measured the stored trials.
  def test_resume_refuses_a_run_without_its_plan_or_of_another_version
    { ->(m) { m.delete("plan") } => /was not written by rackbench run \(meta.json has no plan\): it cannot be resumed/,
      ->(m) { m["rackbench"] = "0.0.1" } => /was made by rackbench 0\.0\.1, not this rackbench #{Rackbench::VERSION}: resuming would mix/,
      ->(m) { m.delete("rackbench") } => /was made by an unknown rackbench version \(meta.json names none\), not this/ }.each do |edit, message|
      dir = fake_run
      before = File.read(File.join(dir, "trials.jsonl"))
      edit_json(File.join(dir, "meta.json"), &edit)
      status, _out, err = run_cli(*resume(dir))
      assert_equal [1, 1], [status, err.lines.size], err
      assert_match message, err
      assert_equal before, File.read(File.join(dir, "trials.jsonl")), "nothing measured"
    end
  end

  # A copied line is the same measurement: left out with a warning, never a
  # second repetition.
  def test_a_duplicated_trial_line_is_not_a_second_repetition
    dir = run_dir
    path = File.join(dir, "trials.jsonl")
    first = File.readlines(path).first
    count = File.readlines(path).size
    File.write(path, first, mode: "a")
    store = Rackbench::Store::RunDir.open(dir)
    assert_equal count, store.raw_trials.size
    status, _out, err = run_cli("report", dir)
    assert_equal 0, status, err
    assert_equal "Warning: #{path} line #{count + 1} repeats line 1 word for word (a copy, not another measurement) " \
                 "and is left out\n", err
  end

  # A FIFO where a run file belongs: refused before anything is measured,
  # never a resume blocked for good on opening it.
  def test_resume_refuses_a_fifo_run_file_at_once
    dir = fake_run
    File.delete(File.join(dir, "samples.jsonl")) if File.exist?(File.join(dir, "samples.jsonl"))
    File.mkfifo(File.join(dir, "samples.jsonl"))
    runner = Thread.new { run_cli(*resume(dir)) }
    assert runner.join(30), "run --resume blocked on a FIFO samples.jsonl (30 s deadline)"
    status, _out, err = runner.value
    assert_equal 1, status
    assert_equal "Error: #{dir}/samples.jsonl is not a regular file (fifo); a run directory holds regular files only: " \
                 "remove it (or restore the file) and run again\n", err
  ensure
    runner&.kill
  end

  def test_a_truncated_meta_is_one_line_error
    dir = run_dir
    File.write(File.join(dir, "meta.json"), "{\"rackbench\": \"0.")
    status, _out, err = run_cli("report", dir)
    assert_equal 1, status
    assert_match(/\AError: .*meta.json is cut short or not JSON; the run directory is damaged/, err)
    assert_equal 1, err.lines.size
  end
end
