# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"
require "support/git_repo"

# Issue 44, item 2: run --ref --setup-cmd CMD runs the app's own setup in
# each commit's worktree before any boot: here it writes the file the app
# serves (git does not hold it, so no commit boots without it), and a
# setup that fails refuses the commit in one line, exit 2, with nothing
# it started left running.
class SetupCmdIntegrationTest < Minitest::Test
  include Rackbench::GitRepo

  APP = <<~RUBY
    SERVED = File.read(File.join(__dir__, "served.txt")) # written by the setup command, not by git
    run ->(_) { [200, { "content-type" => "text/plain" }, [SERVED]] }
  RUBY
  LOAD = ["-s", "puma x1:1", "-e", "/", "-c", "1", "-d", "1", "--warmup", "0", "-r", "1"].freeze

  def setup
    app_repo(File.join(tmpdir, "app"), APP, message: "one")
    File.write(File.join(@repo, "config.ru"), "#{APP}# two\n")
    git("commit", "-qam", "two")
    @dir = File.join(tmpdir, "run")
  end

  def cmdline(file)
    File.read(file)
  rescue SystemCallError
    ""
  end

  def test_the_setup_runs_in_each_worktree_before_the_app_boots
    cmd = 'echo "served from $PWD" > served.txt && echo "setup of $(git rev-parse --short=7 HEAD) in $PWD"'
    status, _out, err = run_cli("run", "--app", @repo, "--ref", "main~1", "--ref", "main", "--setup-cmd", cmd, *LOAD, "-o", @dir)
    assert_equal 0, status, err
    trials = File.readlines(File.join(@dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    recorded = JSON.parse(File.read(File.join(@dir, "meta.json"))).fetch("setup_commands")
    assert_equal [[cmd, 0, false]] * 2, recorded.map { |r| r.values_at("command", "exit_status", "default") }
    %w[main~1 main].each do |ref|
      short = git("rev-parse", "--short=7", ref)
      label = "#{ref}@#{short}"
      assert(trials.any? { |t| t["setup"] == label && t["rps"].to_f.positive? }, "#{label} booted and served: #{err}")
      log = File.read(File.join(@dir, recorded.find { |r| r["ref"] == label }.fetch("log")))
      assert_match(%r{\Asetup of #{short} in #{Regexp.escape(File.realpath(@dir))}/refs/\S+$}, log, "ran in its own worktree")
      assert_match(/^--ref #{Regexp.escape(ref)} \(#{short}\): --setup-cmd `echo .*` exited with status 0 in /, err)
    end
    assert_equal "", git("status", "--porcelain"), "the user's work tree untouched (served.txt only in the worktrees)"
  end

  def test_a_failing_setup_is_one_line_exit_2_and_leaves_nothing_running
    cmd = "echo preparing; echo 'no database here' >&2; sleep 29.75 & exit 3"
    status, _out, err = run_cli("run", "--app", @repo, "--ref", "main~1", "--ref", "main", "--setup-cmd", cmd, *LOAD, "-o", @dir)
    assert_equal 2, status, err
    short = git("rev-parse", "--short=7", "main~1")
    errors = err.lines.grep(/Error/)
    assert_equal 1, errors.size, err
    assert_match(/\AError: --ref main~1 \(#{short}\): --setup-cmd `#{Regexp.escape(cmd)}` exited with status 3 \(preparing \| no database here; log: \S+setup\.log\)/,
                 errors.first)
    refute_includes err, "rackbench/", "no stack trace"
    left = Dir["/proc/[0-9]*/cmdline"].select { |f| cmdline(f).include?("29.75") }
    assert_empty left, "the setup's background sleep is stopped"
    assert_equal 1, git("worktree", "list").lines.size, "the worktrees are removed"
    refute File.exist?(File.join(@dir, "trials.jsonl")) && !File.zero?(File.join(@dir, "trials.jsonl")), "nothing measured"
  end

  # A bisection's step whose commit cannot be set up is skipped, as one
  # that does not boot: gate exits 125 (git bisect run skips it). The base
  # sets up; HEAD's setup fails, before anything boots.
  def test_a_step_whose_setup_fails_is_skipped
    base = git("rev-parse", "main~1")
    cmd = "test \"$(git rev-parse HEAD)\" = #{base} || { echo 'not the base'; exit 4; }"
    status, out, err = run_cli("gate", "--app", @repo, "--base", "main~1", "-e", "/", "-s", "puma x1:1", "--setup-cmd", cmd,
                               "-o", @dir)
    assert_equal 125, status, err
    assert_match(/\A\h{7} \(two\): skipped: it could not be measured \(--ref \h{40} \(\h{7}\): --setup-cmd `test .*` exited with status 4; log: .*steps\/01-\h{7}\.log\)/,
                 out)
    assert_equal 1, git("worktree", "list").lines.size, "the worktrees are removed"
  end
end
