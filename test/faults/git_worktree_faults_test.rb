# frozen_string_literal: true

require_relative "fault_helper"
require "fileutils"
require "support/git_repo"

# Issue 46, item 1: run --ref on a repository that holds what a hostile
# commit or a busy user leaves (a committed marker file, the user's own
# worktree with uncommitted work, a post-checkout hook that fails or takes
# its time), and rackbench interrupted or killed while git checks out.
# Nothing of the user's is removed; every worktree rackbench made is gone
# at the end, or swept by the next run when the first was killed.
class FaultGitWorktreeTest < Minitest::Test
  APP = File.read(File.expand_path("../fixtures/apps/cpu_work/config.ru", __dir__))
  RUN = ["-s", "puma x1:2", "-e", "/work", "-c", "1", "-d", "1", "--warmup", "0"].freeze

  include Rackbench::GitRepo

  def setup
    app_repo(File.join(File.realpath(tmpdir), "app"), APP)
    File.write(File.join(@repo, "README"), "a second commit\n")
    git("add", "README")
    git("commit", "-qm", "readme")
  end

  def run_refs(out, env: {})
    start_rackbench("run", "--app", @repo, "--ref", "main~1", "--ref", "main", *RUN, "-o", out, env: env)
  end

  def hook(text)
    path = File.join(@repo, ".git", "hooks", "post-checkout")
    File.write(path, "#!/bin/sh\n#{text}\n")
    File.chmod(0o755, path)
  end

  def worktrees = git("worktree", "list", "--porcelain").scan(/^worktree (.+)$/).flatten

  def test_a_committed_marker_and_the_users_worktree_are_left_alone
    File.write(File.join(@repo, ".rackbench-worktree"), %({"pid": 999999}))
    git("add", ".rackbench-worktree")
    git("commit", "-qm", "what a pull request can add")
    File.write(File.join(@repo, "notes.txt"), "uncommitted work")
    own = File.join(File.realpath(tmpdir), "pr")
    git("worktree", "add", own, "main~1")
    File.write(File.join(own, ".rackbench-worktree"), %({"pid": 999999}))
    File.write(File.join(own, "draft.txt"), "uncommitted, in the user's worktree")
    out = File.join(tmpdir, "run")
    run_refs(out)
    assert_fault_outcome(exit_code: 0, silent: "a hostile marker is an ordinary file: the run is clean", run_dir: out, min_trials: 2)
    assert_equal "uncommitted work", File.read(File.join(@repo, "notes.txt"))
    assert_equal "uncommitted, in the user's worktree", File.read(File.join(own, "draft.txt"))
    assert_equal [@repo, own], worktrees
    refute Dir.exist?(File.join(out, "refs")), "rackbench's own worktrees removed"
  end

  def test_a_failing_post_checkout_hook_is_named_and_its_worktree_removed
    hook("echo 'This repository is configured for Git LFS but git-lfs was not found' >&2; exit 2")
    out = File.join(tmpdir, "run")
    run_refs(out)
    assert_fault_outcome(exit_code: 1, message: /\AError: --ref main~1: git could not check out \h{7} into .*: This repository is configured for Git LFS .*\(git made the worktree, then failed: a post-checkout hook/)
    assert_equal [@repo], worktrees
    refute Dir.exist?(File.join(out, "refs"))
  end

  # Ctrl-C while git checks out: the worktree git was making is removed.
  def test_ctrl_c_during_the_checkout_leaves_no_worktree
    started = File.join(tmpdir, "hook-started")
    hook("touch #{started}; sleep 20")
    out = File.join(tmpdir, "run")
    run_refs(out)
    @rb.wait_until { File.exist?(started) }
    @rb.signal("INT")
    assert_fault_outcome(exit_code: 130, message: /\AInterrupted by SIGINT/)
    assert_equal [@repo], worktrees
    refute Dir.exist?(File.join(out, "refs"))
  end

  # SIGKILL while git checks out: git finishes the worktree, locked with the
  # dead run's pid; the next run on the repository removes it.
  def test_a_worktree_a_killed_run_left_is_swept_by_the_next_run
    started = File.join(tmpdir, "hook-started")
    done = File.join(tmpdir, "hook-done")
    hook("touch #{started}; sleep 2; touch #{done}")
    first = File.join(tmpdir, "first")
    run_refs(first)
    @rb.wait_until { File.exist?(started) }
    @rb.signal("KILL")
    @rb.wait
    deadline = Rackbench::Clock.now + 20
    sleep 0.1 until File.exist?(done) || Rackbench::Clock.now > deadline
    sleep 0.5 # git exits after its hook
    left = worktrees - [@repo]
    assert_equal 1, left.size, "git finished the killed run's checkout"
    assert git("worktree", "list", "--porcelain").include?("locked rackbench pid="), "locked as rackbench's"
    File.delete(File.join(@repo, ".git", "hooks", "post-checkout"))
    second = File.join(tmpdir, "second")
    run_refs(second)
    assert_fault_outcome(exit_code: 0, silent: "the sweep is housekeeping", run_dir: second, min_trials: 2)
    assert_equal [@repo], worktrees
    refute Dir.exist?(left.first)
  end

  # Issue 46, G23: a ref older than the app's directory (--app REPO/apps/web)
  # is named before anything boots; the probe got "cannot start RUBY_BINARY"
  # and the whole run stopped.
  def test_a_ref_older_than_the_app_is_named_before_anything_boots
    web = File.join(@repo, "apps", "web")
    FileUtils.mkdir_p(web)
    File.write(File.join(web, "config.ru"), APP)
    git("add", "apps")
    git("commit", "-qm", "the app moves to apps/web")
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", web, "--ref", "main~1", "--ref", "main", *RUN, "-o", out)
    assert_fault_outcome(exit_code: 2, message: %r{\AError: --ref main~1 \(\h{7}\): apps/web does not exist at that commit; each ref must hold the app})
    assert_equal [@repo], worktrees
    refute Dir.exist?(File.join(out, "refs")), "nothing checked out"
  end

  # Issue 46, G10: in a shallow clone (actions/checkout's default) a ref
  # beyond it is named as such, with the fix, not only "no such commit".
  def test_a_ref_beyond_a_shallow_clone_names_the_clone
    shallow = File.join(File.realpath(tmpdir), "shallow")
    git("clone", "-q", "--depth", "1", "file://#{@repo}", shallow)
    start_rackbench("run", "--app", shallow, "--ref", "main~1", "--ref", "main", *RUN, "-o", File.join(tmpdir, "run"))
    assert_fault_outcome(exit_code: 2, message: /\AError: --ref "main~1": no such commit in #{Regexp.escape(shallow)}, a shallow clone .*git fetch --unshallow/)
  end

  # Issue 46, G6: a ref with a submodule (empty in its worktree: git worktree
  # add does not check submodules out) is named before anything boots; the
  # probe's app failed to boot with a LoadError naming a path only.
  def test_a_ref_with_a_submodule_is_named_before_anything_boots
    lib = File.join(File.realpath(tmpdir), "lib")
    FileUtils.mkdir_p(lib)
    File.write(File.join(lib, "greeting.rb"), "GREETING = 'hi'\n")
    git("init", "-q", "-b", "main", lib)
    git("-C", lib, "add", ".")
    git("-C", lib, "commit", "-qm", "lib")
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
    git("commit", "-qm", "a submodule")
    out = File.join(tmpdir, "run")
    run_refs(out)
    assert_fault_outcome(exit_code: 0, message: %r{\Awarning: --ref main@\h{7}: the commit has a submodule \(vendor/lib\), which each ref's worktree holds empty},
                         run_dir: out, min_trials: 2)
    assert_equal [@repo], worktrees
  end
end
