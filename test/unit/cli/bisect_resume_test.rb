# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"
require "support/git_repo"

# bisect --resume DIR goes on from the steps bisect.jsonl holds: a tree
# decided there is not measured again, so a bisection whose every step was
# stored answers again without booting anything.
class BisectResumeTest < Minitest::Test
  include Rackbench::GitRepo

  def test_a_resumed_bisection_reads_its_steps_and_measures_nothing_again
    @repo = File.join(tmpdir, "app")
    FileUtils.mkdir_p(@repo)
    File.write(File.join(@repo, "config.ru"), "run ->(_) { [200, {}, ['ok']] }\n")
    git("init", "-q", "-b", "main", ".")
    git("add", ".")
    git("commit", "-qm", "base")
    %w[one two three].each do |name|
      File.write(File.join(@repo, name), name)
      git("add", name)
      git("commit", "-qm", name)
    end
    dir = File.join(tmpdir, "bisect")
    FileUtils.mkdir_p(File.join(dir, "steps"))
    options = { app: @repo, good: "main~3", bad: "main", endpoint: "/" }
    File.write(File.join(dir, "bisect.json"), JSON.generate(options: options))
    rows = { "main" => [0.8, "bad", "lower"], "main~1" => [0.81, "bad", "lower"], "main~2" => [1.0, "good", "equivalent"] }
    lines = rows.map do |ref, (ratio, verdict, outcome)|
      "#{JSON.generate(sha: git('rev-parse', ref), tree: git('rev-parse', "#{ref}^{tree}"), subject: 'x', verdict: verdict,
                       outcome: outcome, ratio: ratio, ci_low: ratio - 0.01, ci_high: ratio + 0.01, rounds: 6,
                       dir: File.join(dir, 'steps', ref))}\n"
    end
    # The found commit against its parent (main~2: not good's tree), stored too.
    lines << "#{JSON.generate(sha: git('rev-parse', 'main~1'), tree: git('rev-parse', 'main~1^{tree}'), subject: 'x', verdict: 'bad',
                              outcome: 'lower', ratio: 0.81, ci_low: 0.8, ci_high: 0.82, rounds: 6, base: git('rev-parse', 'main~2'),
                              dir: File.join(dir, 'steps', 'own'))}\n"
    File.write(File.join(dir, "bisect.jsonl"), lines.join)
    status, out, err = run_cli("bisect", "--resume", dir, "--app", @repo)
    assert_equal 0, status, err
    two = git("rev-parse", "--short=7", "main~1")
    assert_match(/\A#{two} \(two\) made \/ slower by 19% \(95% CI 18–20%\); its parent \h{7} is equivalent to good/, out)
    assert_match(/; against its parent alone it is slower by 19% \(95% CI 18–20%\)$/, out)
    assert_match(/0 decisions measured of 5/, err)
    assert_equal 1, git("worktree", "list").lines.size
    assert_equal 4, File.readlines(File.join(dir, "bisect.jsonl")).size, "nothing appended: nothing measured"
  end

  def test_resume_takes_no_other_options
    dir = File.join(tmpdir, "b")
    FileUtils.mkdir_p(dir)
    File.write(File.join(dir, "bisect.json"), JSON.generate(options: { app: tmpdir }))
    status, _, err = run_cli("bisect", "--resume", dir, "-e", "/x")
    assert_equal 2, status
    assert_match(/\AError: --resume takes no other options \(endpoint\)/, err)
  end
  # A directory is data (issue 46, item 3): the app bisect.json names is
  # booted only when --app names it again; another app is refused, and the
  # line gives the command to type.
  def test_resume_boots_only_the_app_named_again
    dir = File.join(tmpdir, "b")
    app = File.join(tmpdir, "theirs")
    FileUtils.mkdir_p([dir, app])
    File.write(File.join(dir, "bisect.json"), JSON.generate(options: { app: app, good: "a", bad: "b", endpoint: "/" }))
    status, out, err = run_cli("bisect", "--resume", dir)
    assert_equal [2, ""], [status, out]
    assert_equal "Error: --resume boots the app only when you name it again (a directory is data): " \
                 "rackbench bisect --resume #{dir} --app #{app}\n", err
    status, _, err = run_cli("bisect", "--resume", dir, "--app", tmpdir)
    assert_equal 2, status
    assert_match(/\AError: --resume .*: --app .* is not the bisection's app \(#{Regexp.escape(app)}\): rackbench bisect --resume/, err)
  end

  # A setup command bisect.json names (--setup-cmd: sh -c in each step's
  # worktree) runs only when given again, the same.
  def test_resume_runs_a_setup_command_only_when_named_again
    dir = File.join(tmpdir, "b")
    app = File.join(tmpdir, "theirs")
    FileUtils.mkdir_p([dir, app])
    File.write(File.join(dir, "bisect.json"), JSON.generate(options: { app: app, good: "a", bad: "b", endpoint: "/",
                                                                       setup_cmd: "touch ran" }))
    status, out, err = run_cli("bisect", "--resume", dir, "--app", app)
    assert_equal [2, ""], [status, out]
    assert_equal "Error: #{dir} names the setup command touch ran; --resume runs only what you name again, as a run " \
                 "directory is data: rackbench bisect --resume #{dir} --app #{app} --setup-cmd\\=touch\\ ran\n", err
    status, _, err = run_cli("bisect", "--resume", dir, "--app", app, "--setup-cmd", "bin/setup")
    assert_equal [2, "Error: --setup-cmd bin/setup is not what #{dir} was run with (touch ran): drop it\n"], [status, err]
  end
end
