# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "support/git_repo"
require "rackbench/workload/git_worktrees"

# Issue 46, item 1: a worktree git refuses to remove, even one rackbench
# made, is left as it is and said; rackbench never deletes it itself (the
# sweep ran rm -rf where `git worktree remove` had refused).
class GitWorktreesTest < Minitest::Test
  include Rackbench::GitRepo

  Worktrees = Rackbench::Workload::GitWorktrees

  def setup
    @repo = File.join(File.realpath(tmpdir), "repo")
    FileUtils.mkdir_p(@repo)
    git("init", "-q", "-b", "main", ".")
    git("commit", "-q", "--allow-empty", "-m", "base")
  end

  # A commit id that looks like an option (a hand-edited run's) reaches
  # git as a commit, never as an option of git worktree add.
  def test_a_commit_id_is_never_read_as_an_option
    path = File.join(File.realpath(tmpdir), "runs", "orphan")
    e = assert_raises(Rackbench::Error) { Worktrees.add(@repo, path, "--orphan", []) }
    assert_match(/\Agit could not check out --orpha into .*: fatal: invalid reference: --orphan/, e.message)
    assert_equal 1, git("worktree", "list").lines.size
  end

  # A dead run's worktree whose .git file is gone: git's validation refuses
  # `git worktree remove --force --force`, so the sweep leaves it, with
  # what the user's file in it holds, and says how to remove it.
  def test_a_worktree_git_refuses_to_remove_is_left_and_said
    path = File.join(File.realpath(tmpdir), "left")
    git("worktree", "add", "-q", "--detach", "--lock", "--reason", "rackbench pid=#{dead_pid} path=#{path}", path, "main")
    File.delete(File.join(path, ".git"))
    File.write(File.join(path, "work.txt"), "kept")
    said = Worktrees.sweep(@repo)
    assert_equal 1, said.size, said.inspect
    assert_match(/\Agit would not remove the worktree #{Regexp.escape(path)} \(fatal: validation failed, cannot remove working tree: .*\); it is left as it is: remove it with git worktree remove --force --force #{Regexp.escape(path)}\z/, said.first)
    assert_equal "kept", File.read(File.join(path, "work.txt"))
    assert_equal 2, git("worktree", "list").lines.size, "still registered: git's to remove"
  end
end
