# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"
require "support/git_repo"

# rackbench bisect on a real git history with real servers: good, an empty
# commit (good's tree: good unmeasured), a commit that makes /work five
# times the work, and a README change. Bad against good and the slow
# commit against good are the two steps measured (its parent has good's
# tree, so it is not decided against it again); the slow one is named,
# and the repository is left as it was. Not twenty times the work: on a
# busy machine a request then took 190 ms, a 1 s trial was too short for
# its latency (Stats::Validity) and nothing was decided.
class BisectIntegrationTest < Minitest::Test
  APP = File.read(File.expand_path("../fixtures/apps/cpu_work/config.ru", __dir__))

  include Rackbench::GitRepo

  def test_the_commit_that_made_work_slower_is_named
    app_repo(File.join(tmpdir, "app"), APP)
    git("commit", "-q", "--allow-empty", "-m", "nothing yet")
    File.write(File.join(@repo, "config.ru"), APP.sub("WORK = 20_000", "WORK = 100_000"))
    git("commit", "-qam", "five times the work")
    File.write(File.join(@repo, "README"), "readme\n")
    git("add", "README")
    git("commit", "-qm", "a readme")
    slow = git("rev-parse", "--short=7", "main~1")
    before = [git("status", "--porcelain"), git("branch", "-v"), git("worktree", "list")]
    dir = File.join(tmpdir, "bisect")
    status, out, err = run_cli("bisect", "--app", @repo, "--good", "main~3", "--bad", "main", "-e", "/work", "-s", "puma x1:2",
                               "-c", "2", "-d", "1", "--warmup", "0", "--max-rounds", "4", "--cpus", "auto", "-o", dir)
    assert_equal 0, status, "#{err}\n#{Dir[File.join(dir, 'steps', '*.log')].map { |f| "#{f}:\n#{File.read(f).lines.last(15).join}" }.join}"
    assert_match(/\A#{slow} \(five times the work\) made \/work slower by [5-9]\d(\.\d)?% \(95% CI [\d.]+–[\d.]+%\); its parent \h{7} is good: the same tree as good/, out)
    assert_match(/at most 5 decisions/, err)
    assert_match(/2 decisions measured of 5; Bonferroni over 5 decisions/, err)
    rows = File.readlines(File.join(dir, "bisect.jsonl")).map { |l| JSON.parse(l) }
    assert_equal [["a readme", "bad"], ["five times the work", "bad"]], rows.map { |r| [r["subject"], r["verdict"]] }
    meta = JSON.parse(File.read(File.join(rows.first["dir"], "meta.json")))
    assert_in_delta 0.2, meta.dig("config", "rate_share"), 1e-9
    assert_equal before, [git("status", "--porcelain"), git("branch", "-v"), git("worktree", "list")]
  end
end
