# frozen_string_literal: true

require_relative "fault_helper"
require "fileutils"
require "support/git_repo"

# Issue 46, item 3: a run directory is data. A copied run whose meta.json
# was edited to name an app (Ruby that would run as this user) or load
# hosts (SSH connections) is not booted or contacted by --resume until the
# user names them again; named again, the run resumes.
class FaultResumeTrustTest < Minitest::Test
  RUN = ["-s", "puma x1:2", "-e", "/hello", "-c", "1", "-d", "1", "--warmup", "0"].freeze

  include Rackbench::GitRepo

  def finished_run
    out = File.join(tmpdir, "run")
    start_rackbench("run", *RUN, "-o", out)
    assert_fault_outcome(exit_code: 0, silent: "a clean run to copy", run_dir: out, min_trials: 1)
    out
  end

  def edit_config(dir, **changes)
    meta = JSON.parse(File.read(File.join(dir, "meta.json")))
    changes.each { |k, v| meta["config"][k.to_s] = v }
    File.write(File.join(dir, "meta.json"), JSON.pretty_generate(meta))
  end

  def test_an_app_only_the_run_directory_names_is_not_booted
    out = finished_run
    ran = File.join(tmpdir, "ran")
    hostile = File.join(out, "evil")
    FileUtils.mkdir_p(hostile)
    File.write(File.join(hostile, "config.ru"), "File.write(#{ran.inspect}, Process.uid.to_s)\nrun ->(_) { [200, {}, ['x']] }\n")
    edit_config(out, app: hostile)
    File.write(File.join(out, "trials.jsonl"), "") # nothing measured yet: a resume would boot the app at once
    start_rackbench("run", "--resume", out)
    assert_fault_outcome(exit_code: 2, message: %r{\AError: .*/run names the app .*/run/evil; --resume runs only what you name again, as a run directory is data: rackbench run --resume .*/run --app .*/run/evil$})
    refute File.exist?(ran), "the app's code never ran"
  end

  # A setup command (--setup-cmd: sh -c in the app's directory) only the
  # run directory names is not run, even with the app given again.
  def test_a_setup_command_only_the_run_directory_names_is_not_run
    out = finished_run
    ran = File.join(tmpdir, "ran")
    app = File.join(tmpdir, "app")
    FileUtils.mkdir_p(app)
    File.write(File.join(app, "config.ru"), "run ->(_) { [200, {}, ['x']] }\n")
    edit_config(out, app: app, setup_cmd: "touch #{ran}")
    File.write(File.join(out, "trials.jsonl"), "")
    start_rackbench("run", "--resume", out, "--app", app)
    assert_fault_outcome(exit_code: 2, message: /\AError: .*names the setup command touch .*ran; --resume runs only what you name again, as a run directory is data: .* --setup-cmd\\=touch\\ /)
    refute File.exist?(ran), "the command never ran"
  end

  def test_load_hosts_only_the_run_directory_names_are_not_contacted
    out = finished_run
    edit_config(out, load_hosts: ["bench@192.0.2.7"])
    start_rackbench("run", "--resume", out)
    assert_fault_outcome(exit_code: 2, message: /\AError: .*names the load host\(s\) bench@192.0.2.7; .* --load-host bench@192.0.2.7$/)
    refute(@rb.descendants.any? { |e| e.comm == "ssh" }, "no ssh started")
  end

  # A --ref run's commits come from meta.json: one edited to "--orphan" is
  # refused in one line before git runs (it reached git worktree add as an
  # option, whose usage text was the error).
  def test_a_commit_the_run_names_is_a_full_commit_id
    out = finished_run
    @repo = File.join(File.realpath(tmpdir), "app")
    FileUtils.mkdir_p(@repo)
    File.write(File.join(@repo, "config.ru"), "run ->(_) { [200, {}, ['x']] }\n")
    git("init", "-q", "-b", "main", ".")
    git("add", ".")
    git("commit", "-qm", "app")
    edit_config(out, app: @repo, refs: [{ "name" => "main", "sha" => git("rev-parse", "main") }, { "name" => "pr", "sha" => "--orphan" }])
    File.write(File.join(out, "trials.jsonl"), "")
    start_rackbench("run", "--resume", out, "--app", @repo)
    assert_fault_outcome(exit_code: 1, message: %r{\AError: .*/run/meta\.json is damaged: config\.refs\[1\]\.sha is "--orphan", not a full commit id})
    refute(@rb.descendants.any? { |e| e.comm == "git" }, "no git started")
    assert_equal 1, git("worktree", "list").lines.size
  end
end
