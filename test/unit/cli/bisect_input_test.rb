# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "support/git_repo"

# rackbench bisect refuses bad input in one line, exit 2, before anything
# is checked out or booted: the user's work tree, index, branches and
# worktrees are as they were, and no bisection directory is made.
class BisectInputTest < Minitest::Test
  include Rackbench::GitRepo

  def setup
    @repo = File.join(tmpdir, "app")
    FileUtils.mkdir_p(@repo)
    File.write(File.join(@repo, "config.ru"), "run ->(_) { [200, {}, ['ok']] }\n")
    git("init", "-q", "-b", "main", ".")
    git("add", ".")
    git("commit", "-qm", "one")
    git("commit", "-q", "--allow-empty", "-m", "two")
    git("checkout", "-qb", "side", "main~1")
    git("commit", "-q", "--allow-empty", "-m", "side")
    git("checkout", "-q", "main")
    File.write(File.join(@repo, "config.ru"), "# uncommitted\n", mode: "a")
    git("add", "config.ru")
    @before = state
    @out = File.join(tmpdir, "bisect")
  end

  def state = [git("status", "--porcelain"), git("branch", "-a", "-v"), git("worktree", "list"), git("rev-parse", "HEAD")]

  def refused(pattern, *args)
    status, out, err = run_cli("bisect", *args, "-o", @out)
    assert_equal 2, status, err
    assert_equal "", out
    assert_equal 1, err.lines.size, err
    assert_match(/\AError: #{pattern}/, err)
    assert_equal @before, state
    refute File.exist?(@out), "no bisection directory"
  end

  def test_each_bad_input_is_one_line_exit_2_and_touches_nothing
    refused(/--good "nope": no such commit in /, "--app", @repo, "--good", "nope", "--bad", "main", "-e", "/")
    refused(/--bad "nope": no such commit/, "--app", @repo, "--good", "main~1", "--bad", "nope", "-e", "/")
    refused(/--good main and --bad main~0 are one commit \(\h{7}\): nothing lies between them/,
            "--app", @repo, "--good", "main", "--bad", "main~0", "-e", "/")
    refused(/--good side \(\h{7}\) is not an ancestor of --bad main \(\h{7}\); bisect walks the history from good to bad/,
            "--app", @repo, "--good", "side", "--bad", "main", "-e", "/")
    refused(/--good main \(\h{7}\) is not an ancestor of --bad main~1/, "--app", @repo, "--good", "main", "--bad", "main~1", "-e", "/")
    refused(/bisect needs --endpoint/, "--app", @repo, "--good", "main~1", "--bad", "main")
    refused(/bisect takes one level: -c N \(got 1,8\)/, "--app", @repo, "--good", "main~1", "--bad", "main", "-e", "/", "-c", "1,8")
    refused(/--margin/, "--app", @repo, "--good", "main~1", "--bad", "main", "-e", "/", "--margin", "120")
    refused(/unknown option --goood/, "--app", @repo, "--goood", "main~1", "--bad", "main", "-e", "/")
  end

  def test_a_directory_that_is_not_a_repository_is_refused
    plain = File.join(tmpdir, "plain")
    FileUtils.mkdir_p(plain)
    File.write(File.join(plain, "config.ru"), "run ->(_) { [200, {}, ['ok']] }\n")
    refused(/--app #{plain} is not in a git repository/, "--app", plain, "--good", "a", "--bad", "b", "-e", "/")
    refused(/--app .* must be a config.ru file/, "--app", File.join(tmpdir, "missing"), "--good", "a", "--bad", "b", "-e", "/")
  end

  def test_resume_of_a_directory_without_a_bisection_is_refused
    status, _, err = run_cli("bisect", "--resume", tmpdir)
    assert_equal 2, status
    assert_match(/\AError: --resume .*: no bisection there \(bisect.json missing or unreadable\)\n\z/, err)
  end

  def test_help_names_the_exit_statuses
    status, out, = run_cli("bisect", "--help")
    assert_equal 0, status
    assert_includes out, "Usage: rackbench bisect --app PATH --good A --bad B -e ENDPOINT"
    assert_includes out, "Exit: 0 a commit named or nothing to bisect; 3 a range of commits, not one"
  end
end
