# frozen_string_literal: true

require_relative "fault_helper"

# Links where a run's files belong (issue 46): a real rackbench refuses to
# write through them in one line, and what they lead to keeps every byte.
class FaultLinkTest < Minitest::Test
  PAUSE_RUN = ["-s", "puma x1:4", "-e", "/pause/0.05", "-c", "2", "-d", "1", "--warmup", "0"].freeze
  LINK = /is a symbolic link; rackbench writes no run file through a link \(it would overwrite what the link leads to\): remove it and run again/

  def victim
    @victim ||= File.join(tmpdir, "victim.txt").tap { |path| File.write(path, "the user's own file\n") }
  end

  # A copy of a finished fake run (no server, two trials of 0.5 s, made
  # once) to resume or render.
  def fake_run
    @fake ||= File.join(tmpdir, "fake").tap do |dir|
      status, _out, err = run_cli("run", "--engine", "fake", "--url", "http://127.0.0.1:9", "--no-verify", "-e", "/a",
                                  "-c", "1,2", "-d", "0.5", "--warmup", "0", "-q", "-o", dir)
      assert_equal 0, status, err
    end
    File.join(tmpdir, "run").tap { |copy| FileUtils.cp_r(@fake, copy) }
  end

  def test_a_fresh_out_holding_a_linked_lock_is_refused
    out = File.join(tmpdir, "run")
    Dir.mkdir(out)
    File.symlink(victim, File.join(out, ".rackbench.lock"))
    start_rackbench("run", *PAUSE_RUN, "-o", out)
    assert_fault_outcome(exit_code: 1, message: /\AError: #{Regexp.escape(out)}\/\.rackbench\.lock #{LINK.source}/)
    assert_equal "the user's own file\n", File.read(victim)
  end

  # The last trial dropped, so the resume measures again and would append
  # its samples and process records (before the fix, the CPU calibration's
  # processes went into what a linked processes.jsonl led to). Every run
  # file is checked alike (test/unit/store/own_files_test.rb).
  def test_a_resume_with_a_linked_samples_or_processes_file_is_refused
    %w[samples.jsonl processes.jsonl].each do |name|
      dir = fake_run
      trials = File.join(dir, "trials.jsonl")
      File.write(trials, File.readlines(trials).first)
      FileUtils.rm_f(File.join(dir, name))
      File.symlink(victim, File.join(dir, name))
      start_rackbench("run", "--resume", dir, "--url", "http://127.0.0.1:9")
      assert_fault_outcome(exit_code: 1, message: /\AError: #{Regexp.escape(dir)}\/#{name} #{LINK.source}/)
      assert_equal "the user's own file\n", File.read(victim), name
      assert_equal 1, read_trials(dir).size, "#{name}: nothing measured"
    end
  end

  def test_report_output_through_a_hard_link_to_the_trials_is_refused
    dir = fake_run
    trials = File.join(dir, "trials.jsonl")
    before = File.binread(trials)
    out = File.join(tmpdir, "out.csv")
    File.link(trials, out)
    start_rackbench("report", dir, "--format", "csv", "-o", out)
    assert_fault_outcome(exit_code: 2, message: /\AError: --output #{Regexp.escape(out)} is one of the run's own files \(a link to #{Regexp.escape(trials)}\); write the rendering elsewhere/)
    assert_equal before, File.binread(trials)
  end
end
