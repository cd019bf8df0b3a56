# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "support/git_repo"

# rackbench gate, the predicate of git bisect run: bad input and failures
# exit 255 (git bisect run stops; 1-127 would call the commit bad), one
# line; a HEAD with the base's tree is good without measuring.
class GateCommandTest < Minitest::Test
  include Rackbench::GitRepo

  def setup
    @repo = File.join(tmpdir, "app")
    FileUtils.mkdir_p(@repo)
    File.write(File.join(@repo, "config.ru"), "run ->(_) { [200, {}, ['ok']] }\n")
    git("init", "-q", "-b", "main", ".")
    git("add", ".")
    git("commit", "-qm", "base")
    git("commit", "-q", "--allow-empty", "-m", "same tree")
  end

  def test_head_with_the_base_tree_is_good_unmeasured
    status, out, err = run_cli("gate", "--app", @repo, "--base", "main~1", "-e", "/", "-o", File.join(tmpdir, "g"))
    assert_equal 0, status, err
    assert_match(/\A\h{7} \(same tree\): good: the same tree as --base \h{7}: the same code, not measured\n\z/, out)
    refute File.exist?(File.join(tmpdir, "g")), "nothing measured, no directory"
  end

  def test_bad_input_exits_255_in_one_line
    [[%w[--base nope -e /], /--base "nope": no such commit/],
     [%w[--base main~1], /gate needs --endpoint/],
     [%w[--base main~1 -e / --steps 0], /--steps 0: a count of 1 or more/],
     [%w[--base main~1 -e / --margin 200], /--margin/],
     [%w[--bogus main~1 -e /], /unknown option --bogus/]].each do |args, pattern|
      status, out, err = run_cli("gate", "--app", @repo, *args)
      assert_equal 255, status, err
      assert_equal "", out
      assert_equal 1, err.lines.size, err
      assert_match(/\AError: .*#{pattern.source}.*\(exit 255: git bisect run stops\)\n\z/, err)
    end
    assert_equal 1, git("worktree", "list").lines.size
  end
end
