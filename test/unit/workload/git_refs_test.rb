# frozen_string_literal: true

require "test_helper"
require "json"
require "fileutils"
require "support/git_repo"
require "rackbench/workload/git_refs"

# run --ref's git side on a real repository made here: refs resolved to
# commits, worktrees made in the run directory and removed, the user's
# work tree untouched, one left by a dead run swept, bad refs one line.
class GitRefsTest < Minitest::Test
  GitRefs = Rackbench::Workload::GitRefs

  include Rackbench::GitRepo

  def setup
    @repo = File.join(tmpdir, "app")
    FileUtils.mkdir_p(File.join(@repo, "web"))
    File.write(File.join(@repo, "web", "config.ru"), "run ->(_) { [200, {}, ['one']] }\n")
    git("init", "-q", "-b", "main", ".")
    git("add", ".")
    git("commit", "-qm", "one")
    File.write(File.join(@repo, "web", "config.ru"), "run ->(_) { [200, {}, ['two']] }\n")
    git("commit", "-qam", "two")
    @app = File.join(@repo, "web")
  end

  def test_refs_resolve_to_commits_and_label_with_the_short_id
    refs = GitRefs.resolve(@app, %w[main~1 main])
    assert_equal [git("rev-parse", "main~1"), git("rev-parse", "main")], refs.map(&:sha)
    assert_equal ["main~1@#{git('rev-parse', '--short=7', 'main~1')}", "main@#{git('rev-parse', '--short=7', 'main')}"], refs.map(&:label)
    stored = GitRefs.resolve(@app, [{ "name" => "x", "sha" => "a" * 40 }])
    assert_equal "x@aaaaaaa", stored.first.label, "a stored run's commit is not resolved again"
    sha = git("rev-parse", "main")
    assert_equal sha[0, 7], GitRefs.resolve(@app, [sha, "main"]).first.label, "a ref given as a commit id is its short id"
  end

  def test_bad_refs_and_paths_are_one_line
    e = assert_raises(Rackbench::UsageError) { GitRefs.resolve(@app, %w[main nope]) }
    assert_match(/\A--ref "nope": no such commit in .*app \(a branch, tag or sha/, e.message)
    plain = File.join(tmpdir, "plain")
    FileUtils.mkdir_p(plain)
    e = assert_raises(Rackbench::UsageError) { GitRefs.resolve(plain, %w[a b]) }
    assert_match(/is not in a git repository/, e.message)
  end

  def test_worktrees_hold_each_commit_and_leave_nothing_behind
    run = File.join(tmpdir, "run")
    refs = GitRefs.resolve(@app, %w[main~1 main])
    seen = nil
    GitRefs.with_worktrees(@app, refs, run) do |trees|
      seen = trees.transform_values { |root| File.read(File.join(root, "config.ru")) }
      assert(trees.values.all? { |root| root.start_with?("#{run}/refs/") && root.end_with?("/web") }, trees.inspect)
      assert_equal 3, git("worktree", "list").lines.size
    end
    assert_equal({ refs[0].sha => "run ->(_) { [200, {}, ['one']] }\n", refs[1].sha => "run ->(_) { [200, {}, ['two']] }\n" }, seen)
    assert_equal 1, git("worktree", "list").lines.size, "removed"
    refute Dir.exist?(File.join(run, "refs"))
    assert_equal "", git("status", "--porcelain"), "the user's work tree untouched"
    assert_equal "main", git("rev-parse", "--abbrev-ref", "HEAD")
  end

  # A run killed with SIGKILL left its worktree: the next run removes it
  # (git holds it locked with rackbench's reason, naming a process that is gone).
  def test_a_dead_runs_worktree_is_swept
    left = File.join(File.realpath(tmpdir), "dead", "refs", "main")
    git("worktree", "add", "--detach", "--lock", "--reason", "rackbench pid=#{dead_pid} path=#{left}", left, "main")
    GitRefs.with_worktrees(@app, GitRefs.resolve(@app, %w[main~1 main]), File.join(tmpdir, "run")) { |_| nil }
    refute Dir.exist?(left)
    assert_equal 1, git("worktree", "list").lines.size
  end

  # Issue 46: a file any commit can add (the old marker, at the top of the
  # repository) never makes the main work tree or the user's own worktree
  # rackbench's; nor does a lock that names another path or a live process.
  def test_nothing_but_rackbenchs_own_worktrees_is_ever_removed
    File.write(File.join(@repo, ".rackbench-worktree"), JSON.generate({ "pid" => dead_pid }))
    git("add", ".rackbench-worktree")
    git("commit", "-qm", "a marker anyone can commit")
    File.write(File.join(@repo, "uncommitted.txt"), "the user's work")
    own = File.join(File.realpath(tmpdir), "own")
    git("worktree", "add", own, "main~1")
    File.write(File.join(own, ".rackbench-worktree"), JSON.generate({ "pid" => dead_pid }))
    File.write(File.join(own, "work.txt"), "uncommitted, in the user's worktree")
    other = File.join(File.realpath(tmpdir), "other")
    git("worktree", "add", "--detach", "--lock", "--reason", "rackbench pid=#{dead_pid} path=/elsewhere", other, "main")
    live = File.join(File.realpath(tmpdir), "live")
    git("worktree", "add", "--detach", "--lock", "--reason", "rackbench pid=#{Process.pid} path=#{live}", live, "main")
    GitRefs.with_worktrees(@app, GitRefs.resolve(@app, %w[main~1 main]), File.join(tmpdir, "run")) { |_| nil }
    assert_equal "the user's work", File.read(File.join(@repo, "uncommitted.txt"))
    assert Dir.exist?(File.join(@repo, ".git"))
    assert_equal "uncommitted, in the user's worktree", File.read(File.join(own, "work.txt"))
    assert [other, live].all? { |d| Dir.exist?(d) }, "a lock naming another path, or a live process, is not a dead run's"
    assert_equal 4, git("worktree", "list").lines.size
  end

  # A checkout git made and then failed (a post-checkout hook exiting 1, as
  # git-lfs's does without git-lfs): one line naming the hook, and the
  # worktree removed and pruned.
  def test_a_failed_checkout_is_removed_and_named
    hook = File.join(@repo, ".git", "hooks", "post-checkout")
    File.write(hook, "#!/bin/sh\necho 'git-lfs not found' >&2\nexit 1\n")
    File.chmod(0o755, hook)
    run = File.join(tmpdir, "run")
    e = assert_raises(Rackbench::Error) do
      GitRefs.with_worktrees(@app, GitRefs.resolve(@app, %w[main~1 main]), run) { flunk "no checkout failed" }
    end
    assert_match(/\A--ref main~1: git could not check out \h{7} into .*: git-lfs not found \(git made the worktree, then failed: a post-checkout hook/, e.message)
    assert_equal 1, git("worktree", "list").lines.size
    refute Dir.exist?(File.join(run, "refs"))
  end

  # The directory refs go into is the run's own: a link there is refused.
  def test_a_linked_refs_directory_is_refused
    run = File.join(tmpdir, "run")
    victim = File.join(tmpdir, "victim")
    FileUtils.mkdir_p([run, victim])
    File.symlink(victim, File.join(run, "refs"))
    e = assert_raises(Rackbench::Error) do
      GitRefs.with_worktrees(@app, GitRefs.resolve(@app, %w[main~1 main]), run) { flunk "checked out through a link" }
    end
    assert_match(/refs is a symbolic link; rackbench checks refs out only into a directory of the run's own/, e.message)
    assert_empty Dir.children(victim)
    assert_equal 1, git("worktree", "list").lines.size
  end

  # Issue 46, G23: a ref whose commit predates the app's directory (or its
  # config.ru) is named before anything boots, not a server that "cannot start".
  def test_a_ref_that_predates_the_app_is_named_before_anything_boots
    mono = File.join(tmpdir, "mono")
    FileUtils.mkdir_p(mono)
    File.write(File.join(mono, "README"), "before the app\n")
    git("init", "-q", "-b", "main", ".", dir: mono)
    git("add", ".", dir: mono)
    git("commit", "-qm", "readme", dir: mono)
    FileUtils.mkdir_p(File.join(mono, "apps", "web"))
    File.write(File.join(mono, "apps", "web", "app.rb"), "# the app's code first\n")
    git("add", ".", dir: mono)
    git("commit", "-qm", "the app's directory", dir: mono)
    File.write(File.join(mono, "apps", "web", "config.ru"), "run ->(_) { [200, {}, ['web']] }\n")
    git("add", ".", dir: mono)
    git("commit", "-qm", "its config.ru", dir: mono)
    app = File.join(mono, "apps", "web")
    ru = File.join(app, "config.ru")
    { "main~2" => "apps/web", "main~1" => "apps/web/config.ru" }.each do |ref, missing|
      e = assert_raises(Rackbench::UsageError) { GitRefs.resolve(app, [ref, "main"], config_ru: ru) }
      assert_equal "--ref #{ref} (#{git('rev-parse', '--short=7', ref, dir: mono)}): #{missing} does not exist at that " \
                   "commit; each ref must hold the app: give a later ref, or --app as the app was at that commit", e.message
    end
    assert_equal 2, GitRefs.resolve(app, %w[main main~0], config_ru: ru).size
    status, out, err = run_cli("run", "--app", app, "--ref", "main~2", "--ref", "main", "-s", "puma x1:2", "-e", "/", "-o",
                               File.join(tmpdir, "run"))
    assert_equal [2, "", 1], [status, out, err.lines.size], err
    assert_match(%r{\AError: --ref main~2 \(\h{7}\): apps/web does not exist at that commit;}, err)
  end

  # Issue 46, G26: ref names that differ only in non-ASCII letters get
  # directories of their own (one commit: one worktree on purpose, but each
  # ref's own name), and their worktrees check out under those names.
  def test_refs_differing_only_in_non_ascii_letters_get_their_own_directories
    git("branch", "café", "main~1")
    git("branch", "cafè", "main")
    same = [GitRefs::Ref.new(name: "café", sha: "a" * 40), GitRefs::Ref.new(name: "cafè", sha: "a" * 40)]
    refute_equal(*same.map(&:dir_name))
    assert(same.all? { |r| r.dir_name.match?(/\Acaf_@aaaaaaa-\h+\z/) }, same.map(&:dir_name).inspect)
    assert_equal "main@aaaaaaa", GitRefs::Ref.new(name: "main", sha: "a" * 40).dir_name, "ASCII names keep theirs"
    refs = GitRefs.resolve(@app, %w[café cafè])
    run = File.join(tmpdir, "run")
    GitRefs.with_worktrees(@app, refs, run) do |trees|
      assert_equal refs.map { |r| File.join(File.realpath(run), "refs", r.dir_name, "web") }, trees.values
      assert_equal ["one", "two"], trees.values.map { |root| File.read(File.join(root, "config.ru"))[/'(\w+)'/, 1] }
    end
    assert_equal 1, git("worktree", "list").lines.size
  end

  # Issue 46, G10: in a shallow clone (CI's actions/checkout fetches one
  # commit) a ref older than the clone is named as such, with the fix.
  def test_a_ref_beyond_a_shallow_clone_names_the_clone
    shallow = File.join(tmpdir, "shallow")
    git("clone", "-q", "--depth", "1", "file://#{@repo}", shallow, dir: tmpdir)
    e = assert_raises(Rackbench::UsageError) { GitRefs.resolve(File.join(shallow, "web"), %w[main~1 main]) }
    assert_equal "--ref \"main~1\": no such commit in #{File.realpath(shallow)}, a shallow clone (it holds only the " \
                 "latest commits): fetch the history (git fetch --unshallow; in GitHub Actions, actions/checkout with " \
                 "fetch-depth: 0) and run again", e.message
  end

  # Issue 46, G6: a ref's worktree holds its submodules empty (git worktree
  # add does not check them out): said before anything boots, and the
  # worktrees are still removed.
  def test_submodules_are_named_before_anything_boots
    lib = File.join(tmpdir, "lib")
    FileUtils.mkdir_p(lib)
    File.write(File.join(lib, "greeting.rb"), "GREETING = 'hi'\n")
    git("init", "-q", "-b", "main", ".", dir: lib)
    git("add", ".", dir: lib)
    git("commit", "-qm", "lib", dir: lib)
    git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
    git("commit", "-qm", "a submodule")
    File.write(File.join(@app, "config.ru"), "run ->(_) { [200, {}, ['three']] }\n")
    git("commit", "-qam", "three")
    refs = GitRefs.resolve(@app, %w[main~2 main~1 main])
    assert_equal ["--ref main~1@#{refs[1].short} and main@#{refs[2].short}: the commit has a submodule (vendor/lib), which " \
                  "each ref's worktree holds empty (git worktree add does not check submodules out): an app that loads " \
                  "code from it fails to boot there; to measure such refs, check each out with its submodules " \
                  "(git submodule update --init), run each, and compare the runs (rackbench compare RUN_A RUN_B)"],
                 GitRefs.warnings(@app, refs)
    assert_empty GitRefs.warnings(@app, refs.first(1))
    GitRefs.with_worktrees(@app, refs, File.join(tmpdir, "run")) do |trees|
      assert_empty Dir.children(File.join(File.dirname(trees[refs[2].sha]), "vendor", "lib"))
    end
    assert_equal 1, git("worktree", "list").lines.size, "worktrees with a submodule removed"
  end

  def test_notes_say_an_a_a_and_uncommitted_changes
    refs = GitRefs.resolve(@app, %w[main main~0])
    File.write(File.join(@app, "config.ru"), "# changed\n", mode: "a")
    notes = GitRefs.notes(@app, refs)
    assert_includes notes.first, "--ref main and main~0 are one commit"
    assert_match(/has uncommitted changes; they are not measured/, notes.last)
  end

  # The app's Bundler settings follow it, its relative path made absolute
  # (the installed gems are reused), and its SQLite database is copied.
  def test_untracked_settings_follow_the_app
    FileUtils.mkdir_p(File.join(@app, ".bundle"))
    File.write(File.join(@app, ".bundle", "config"), "---\nBUNDLE_PATH: \"vendor/bundle\"\n")
    FileUtils.mkdir_p(File.join(@app, "db"))
    File.write(File.join(@app, "db", "production.sqlite3"), "db")
    GitRefs.with_worktrees(@app, GitRefs.resolve(@app, %w[main~1 main]), File.join(tmpdir, "run")) do |trees|
      root = trees.values.first
      assert_equal "---\nBUNDLE_PATH: \"#{@app}/vendor/bundle\"\n", File.read(File.join(root, ".bundle", "config"))
      assert_equal "db", File.read(File.join(root, "db", "production.sqlite3"))
    end
  end
end
