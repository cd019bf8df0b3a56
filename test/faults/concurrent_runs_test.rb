# frozen_string_literal: true

require_relative "fault_helper"
require_relative "../support/user_shell"
require "etc"

# One writer per run directory, with real processes: a second run, or a
# --resume, on a directory another rackbench is writing is refused with the
# holder's pid and command, and the first run finishes untouched.
class FaultConcurrentRunsTest < Minitest::Test
  RUN = ["-s", "puma x1:2", "-e", "/pause/0.05", "-c", "1,2,4", "-d", "2", "--warmup", "0"].freeze

  def test_a_second_writer_is_refused_and_the_first_run_is_untouched
    out = File.join(tmpdir, "run")
    first = start_rackbench("run", *RUN, "-o", out)
    first.wait_until { read_trials(out).size >= 1 }
    [["run", *RUN, "-o", out], ["run", "--resume", out]].each do |argv|
      start_rackbench(*argv)
      assert_fault_outcome(exit_code: 1, message: /Error: .*run is being written by another rackbench \(pid #{first.pid}: rackbench run -s puma x1:2/)
      refute first.exited?, "the first run still holds the directory (else this case tested nothing)"
    end
    @rb = first
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 3,
                         silent: "the run holding the directory is not the one at fault: it finishes as it would alone")
    keys = read_trials(out).map { |t| t["key"] }
    assert_equal keys.uniq, keys, "no trial written twice"
    assert_equal 3, keys.size
  end

  # Issue 46, C7: a run another user owns (root's, resumed by nobody; not
  # root: a run made read-only) is one line saying so, never exit 70.
  def test_a_run_this_user_cannot_write_is_refused_in_one_line
    url = "http://127.0.0.1:9"
    out = File.join(tmpdir, "run").tap { |d| File.chmod(0o755, File.dirname(d)) }
    status, _out, err = run_cli("run", "--engine", "fake", "--url", url, "--no-verify", "-e", "/a", "-c", "1,2", "-d", "1",
                                "--warmup", "0", "-q", "-o", out)
    assert_equal 0, status, err
    trials = File.join(out, "trials.jsonl")
    File.write(trials, File.readlines(trials).first) # one trial to go
    before = File.read(trials)
    if Process.uid.zero?
      require_tool!("setpriv")
      nobody = Etc.getpwnam("nobody")
      prefix = ["setpriv", "--reuid=#{nobody.uid}", "--regid=#{nobody.gid}", "--clear-groups"]
      who = /\(nobody; the run belongs to root\)/
    else
      [out, *Dir[File.join(out, "{*,.rackbench.lock}")]].each { |f| File.chmod(File.directory?(f) ? 0o555 : 0o444, f) }
      who = /\(#{Regexp.escape(Etc.getpwuid.name)}; the run belongs to #{Regexp.escape(Etc.getpwuid.name)}\)/
    end
    start_rackbench("run", "--resume", out, "--url", url, prefix: prefix || [])
    assert_fault_outcome(exit_code: 1, message: /\AError: #{Regexp.escape(out)} is not writable by this user #{who}: Permission denied; resume it as .*, or copy it \(cp -r\) and resume the copy$/)
    assert_equal before, File.read(trials)
  ensure
    File.chmod(0o755, out) if out && File.directory?(out)
  end

  # As a script with an unset $DIR writes it: nothing may land in the
  # working directory (or /), and nothing boots.
  def test_an_empty_out_is_refused_before_anything_boots
    dir = tmpdir
    res = Rackbench::UserShell.new(dir).run("run", *RUN, "--out", "", timeout: 60)
    assert_equal 2, res.status
    assert_equal "Error: --out is empty: give a directory, e.g. --out runs/first (an unset variable in a script?)\n", res.stderr
    assert_empty Dir.children(dir)
    refute File.exist?("/meta.json")
  end
end
