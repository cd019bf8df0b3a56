# frozen_string_literal: true

require_relative "fault_helper"
require "fileutils"
require "json"

# Issue 46, item 6: a run directory edited by hand or by someone else, and a
# job summary that is not a file, met by a real rackbench process. Each is
# one line (or none) with the right exit status, never exit 70, a hang or a
# quiet "no trials"; the unit tests hold the wording in detail
# (test/unit/report/cli_damaged_run_test.rb, cli_compare_test.rb,
# formats/csv_test.rb, cli/run_test.rb).
class FaultHostileRunDirTest < Minitest::Test
  URL = "http://127.0.0.1:9"
  FAKE = ["--engine", "fake", "--url", URL, "--no-verify", "-e", "/a", "-c", "1,2", "-d", "0.5", "--warmup", "0", "-q"].freeze

  # A copy of a finished fake run (no server, two trials, made once).
  def fake_run(name = "run")
    @fake ||= File.join(tmpdir, "fake").tap do |dir|
      status, _out, err = run_cli("run", *FAKE, "-o", dir)
      assert_equal 0, status, err
    end
    File.join(tmpdir, name).tap { |copy| FileUtils.cp_r(@fake, copy) }
  end

  def edit_json(path)
    record = JSON.parse(File.read(path))
    yield record
    File.write(path, "#{JSON.generate(record)}\n")
  end

  # P8: an editor's trailing empty line is no damage: report, compare and
  # resume read the run (they refused it: 'line 3 is not JSON ("")').
  def test_a_trailing_empty_line_in_trials_is_read_as_the_run
    dir = fake_run
    trials = File.join(dir, "trials.jsonl")
    File.write(trials, "#{File.readlines(trials).first}\n")
    [["report", dir], ["compare", dir, fake_run("other")], ["run", "--resume", dir, "--url", URL]].each do |argv|
      start_rackbench(*argv)
      assert_fault_outcome(exit_code: 0, silent: "a blank line is no record: #{argv.first} reads the run as it is")
    end
    assert_equal 2, read_trials_skipping_blank(dir).size, "the resume measured the trial left"
  end

  # C4: a trials.jsonl linking to itself is an error, not "no trials" (exit
  # 0 in the probe; report on a run with no setups.jsonl, as a --url run
  # has, said "nothing was measured there yet").
  def test_a_self_linked_trials_file_is_an_error
    dir = fake_run
    trials = File.join(dir, "trials.jsonl")
    File.delete(trials)
    File.symlink(trials, trials)
    [["report", dir], ["compare", fake_run("other"), dir]].each do |argv|
      start_rackbench(*argv)
      assert_fault_outcome(exit_code: 1, message: /\AError: cannot read #{Regexp.escape(trials)}: Too many levels of symbolic links$/)
    end
  end

  # C10: one run given as both runs (by another spelling) is refused.
  def test_one_run_compared_with_itself_is_refused
    dir = fake_run
    start_rackbench("compare", dir, "#{dir}/")
    assert_fault_outcome(exit_code: 2, message: /\AError: RUN_A #{Regexp.escape(dir)} and RUN_B .* are one run directory: a run compared with itself/)
  end

  # N27 and N34: queues, balance and config.app of the wrong type are one
  # line naming file and field (exit 70 before).
  def test_wrong_typed_queues_balance_and_app_are_one_line
    { "queues" => "x", "balance" => { "workers" => ["a"] } }.each do |key, value|
      dir = fake_run
      trials = File.join(dir, "trials.jsonl")
      rows = File.readlines(trials).map { |line| JSON.parse(line) }
      rows.first[key] = value
      File.write(trials, rows.map { |row| "#{JSON.generate(row)}\n" }.join)
      start_rackbench("report", dir, "-f", "html")
      assert_fault_outcome(exit_code: 1, message: /\AError: #{Regexp.escape(trials)} line 1 is not a trial record: #{key}/)
    end
    dir = fake_run
    edit_json(File.join(dir, "meta.json")) { |meta| meta["config"]["app"] = 42 }
    start_rackbench("run", "--resume", dir, "--url", URL)
    assert_fault_outcome(exit_code: 1, message: /\AError: #{Regexp.escape(dir)}\/meta\.json is damaged: config\.app is 42, not a string/)
  end

  # P6: text a spreadsheet would run as a formula (a label from a hostile
  # run) is written quoted in the CSV.
  def test_csv_cells_a_spreadsheet_would_run_are_quoted
    dir = fake_run
    trials = File.join(dir, "trials.jsonl")
    File.write(trials, File.read(trials).gsub(%("setup":"#{URL}"), %("setup":"=HYPERLINK(\\"http://x\\")")))
    out = File.join(tmpdir, "out.csv")
    start_rackbench("report", dir, "-f", "csv", "-o", out)
    assert_fault_outcome(exit_code: 0, silent: "a formula in a label is data: the report is written")
    cells = File.read(out).lines.drop(1).flat_map { |line| line.split(",") }
    assert(cells.any? { |cell| cell.include?("'=HYPERLINK") }, "the label is written, quoted")
    assert_empty cells.grep(/\A"?=/), "no cell a spreadsheet runs"
  end

  # C9: a FIFO as $GITHUB_STEP_SUMMARY (nothing reading it) is a warning;
  # the run ends as it would instead of waiting for good.
  def test_a_fifo_as_the_job_summary_is_a_warning_not_a_hang
    fifo = File.join(tmpdir, "summary")
    File.mkfifo(fifo)
    out = File.join(tmpdir, "run")
    start_rackbench("run", *FAKE, "-o", out, env: { "GITHUB_STEP_SUMMARY" => fifo })
    @rb.wait(timeout: 60)
    assert @rb.exited?, "the run waited on a FIFO as $GITHUB_STEP_SUMMARY"
    assert_fault_outcome(exit_code: 0, message: /\AWarning: \$GITHUB_STEP_SUMMARY \(#{Regexp.escape(fifo)}\) is a fifo, not a file/,
                         run_dir: out, min_trials: 2)
  end

  private

  def read_trials_skipping_blank(dir)
    File.readlines(File.join(dir, "trials.jsonl")).reject { |line| line.strip.empty? }.map { |line| JSON.parse(line) }
  end
end
