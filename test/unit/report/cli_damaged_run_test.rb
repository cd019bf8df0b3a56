# frozen_string_literal: true

require "test_helper"
require "json"
require_relative "run_fixture"

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
      [["report", dir], ["compare", dir, run_dir], ["run", "--resume", resumable]].each do |argv|
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

  def test_a_truncated_meta_is_one_line_error
    dir = run_dir
    File.write(File.join(dir, "meta.json"), "{\"rackbench\": \"0.")
    status, _out, err = run_cli("report", dir)
    assert_equal 1, status
    assert_match(/\AError: .*meta.json is cut short or not JSON; the run directory is damaged/, err)
    assert_equal 1, err.lines.size
  end
end
