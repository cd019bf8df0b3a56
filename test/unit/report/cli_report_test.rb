# frozen_string_literal: true

require "test_helper"
require "json"
require "csv"
require_relative "run_fixture"

class CliReportTest < Minitest::Test
  def run_dir
    Rackbench::RunFixture.full_run(File.join(tmpdir, "run"))
  end

  def test_default_is_the_terminal_table
    status, out, = run_cli("report", run_dir)
    assert_equal 0, status
    assert_match(%r{^/hello\s+c=1\s+c=8$}, out)
    assert_match(/^puma x2:3\s+5000 \[4752-5248\] cv 2%/, out)
  end

  def test_each_format_to_stdout
    dir = run_dir
    _, json, = run_cli("report", dir, "--format", "json")
    assert_equal "rackbench.report/1", JSON.parse(json)["schema"]
    _, md, = run_cli("report", dir, "-f", "md")
    assert_includes md, "| /hello | c=1 | c=8 |"
    _, csv, = run_cli("report", dir, "--format", "csv")
    assert_equal 24, CSV.parse(csv, headers: true).size
    _, pivot, = run_cli("report", dir, "--format", "csv", "--pivot", "concurrency")
    assert_includes pivot, "concurrency 8,req/s (median)\nendpoint \\ setup,puma x2:3,unicorn x2\n/hello,10000.0,6000.0\n"
  end

  def test_html_to_a_file
    out_file = File.join(tmpdir, "r.html")
    status, out, err = run_cli("report", run_dir, "--format", "html", "--output", out_file)
    assert_equal 0, status, err
    assert_empty out
    assert_includes err, "Wrote #{out_file}"
    assert_includes File.read(out_file), "<canvas id=\"chart-rps-0\""
  end

  def test_bad_input_is_one_error_line
    dir = run_dir
    [[%w[--format xml], /unknown --format "xml"; accepted: table, html, md, csv, json, speedscope/],
     [%w[--format md --pivot endpoint], /--pivot applies to --format csv only/],
     [%w[--format csv --pivot setup], /unknown --pivot "setup"; accepted: endpoint, concurrency/]].each do |args, message|
      status, _, err = run_cli("report", dir, *args)
      assert_equal 2, status
      assert_match(/\AError: #{message.source}.*\n\z/, err)
    end
    status, _, err = run_cli("report", File.join(tmpdir, "nothing"))
    assert_equal 1, status
    assert_match(/\AError: .* is not a rackbench run directory/, err)
  end

  def test_help_documents_the_csv_tables
    status, out, = run_cli("report", "--help")
    assert_equal 0, status
    assert_match(/--pivot BY/, out)
    assert_match(/tidy: one row per trial/, out)
  end

  # -o never replaces the run's own files (CSV over trials.jsonl lost the run).
  def test_output_into_the_runs_own_files_is_refused
    dir = run_dir
    before = File.read(File.join(dir, "trials.jsonl"))
    [File.join(dir, "trials.jsonl"), File.join(dir, "meta.json"), File.join(dir, "logs", "x.csv")].each do |target|
      status, _out, err = run_cli("report", dir, "--format", "csv", "-o", target)
      assert_equal 2, status, target
      assert_match(/\AError: --output .* is one of the run's own files; write the rendering elsewhere, e\.g\. --output .*rendered\.csv\n\z/, err)
    end
    assert_equal before, File.read(File.join(dir, "trials.jsonl"))
    status, _out, err = run_cli("report", dir, "--format", "md", "-o", File.join(dir, "summary.md"))
    assert_equal 0, status, err
  end

  # A symlink is followed: to the file, to the run directory, or dangling
  # onto a file the run writes later (report.html).
  def test_output_through_a_symlink_onto_the_runs_own_files_is_refused
    dir = run_dir
    before = File.read(File.join(dir, "trials.jsonl"))
    links = tmpdir
    File.symlink(File.join(dir, "trials.jsonl"), File.join(links, "out.csv"))
    File.symlink(dir, File.join(links, "run"))
    File.symlink(File.join(dir, "report.html"), File.join(links, "page.html"))
    [File.join(links, "out.csv"), File.join(links, "run", "trials.jsonl"), File.join(links, "page.html")].each do |target|
      status, _out, err = run_cli("report", dir, "--format", "csv", "-o", target)
      assert_equal 2, status, "#{target}: #{err}"
      assert_match(/\AError: --output #{Regexp.escape(target)} is one of the run's own files/, err)
    end
    assert_equal before, File.read(File.join(dir, "trials.jsonl"))
    refute File.exist?(File.join(dir, "report.html"))
  end

  # Issue 46: a hard link is the same file under another name, outside the
  # run directory: known by its inode, refused, the trials kept.
  def test_output_through_a_hard_link_to_the_runs_own_files_is_refused
    dir = run_dir
    trials = File.join(dir, "trials.jsonl")
    before = File.read(trials)
    target = File.join(tmpdir, "out.csv")
    File.link(trials, target)
    status, _out, err = run_cli("report", dir, "--format", "csv", "-o", target)
    assert_equal 2, status, err
    assert_equal "Error: --output #{target} is one of the run's own files (a link to #{trials}); write the rendering " \
                 "elsewhere, e.g. --output #{File.join(dir, 'rendered.csv')}\n", err
    assert_equal before, File.read(trials)
  end

  # A trials.jsonl that is not a regular file, or a directory with nothing
  # measured, is an error, never an empty report with exit 0.
  def test_a_missing_or_special_trials_file_is_an_error
    dir = run_dir
    File.rename(File.join(dir, "trials.jsonl"), File.join(dir, "t.bak"))
    File.mkfifo(File.join(dir, "trials.jsonl"))
    status, _out, err = run_cli("report", dir)
    assert_equal 1, status
    assert_match(/trials.jsonl is not a regular file \(fifo\)/, err)
    File.delete(File.join(dir, "trials.jsonl"))
    File.delete(File.join(dir, "setups.jsonl"))
    status, _out, err = run_cli("report", dir)
    assert_equal 1, status
    assert_match(/holds no trials.jsonl and no setups.jsonl: nothing was measured there yet/, err)
  end
end
