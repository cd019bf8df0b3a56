# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"
require "support/git_repo"

# run --app PATH --ref BASE --ref HEAD on a real git repository: a commit
# that doubles the CPU a request takes is decided slower and fails the
# gate (exit 1), each commit ran from its own worktree in the run
# directory, and the user's repository is left as it was.
class RefGateIntegrationTest < Minitest::Test
  # /work spends a fixed amount of CPU per request in the request's thread
  # (WORK iterations); bench/ref_gate.rb commits the same app.
  APP = File.read(File.expand_path("../fixtures/apps/cpu_work/config.ru", __dir__))

  include Rackbench::GitRepo

  def test_a_twice_slower_commit_fails_the_gate_and_the_repository_is_untouched
    app_repo(File.join(tmpdir, "app"), APP)
    File.write(File.join(@repo, "config.ru"), APP.sub("WORK = 20_000", "WORK = 40_000"))
    git("commit", "-qam", "twice the work per request")
    base = git("rev-parse", "--short=7", "main~1")
    head = git("rev-parse", "--short=7", "main")
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "--app", @repo, "--ref", "main~1", "--ref", "main", "-s", "puma x1:2", "-e", "/work",
                               "-c", "2", "-d", "1", "--warmup", "0.5", "--decide", "--max-rounds", "10",
                               "--fail-if-slower", "5", "-o", dir)
    assert_equal 1, status, err
    assert_match(/^Slower: main@#{head} is decided slower than main~1@#{base} by more than 5% in 1 cell\(s\): \/work c=2 /, err)
    assert_match(/main@#{head} against main~1@#{base} \(\d+ rounds\): req\/s slower(: B\/A 0\.[3-6]\d*x| by [3-6]\d%)/, out)
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal ["main@#{head}", "main~1@#{base}"], trials.map { |t| t["setup"] }.uniq.sort
    meta = JSON.parse(File.read(File.join(dir, "meta.json")))
    assert_equal [git("rev-parse", "main~1"), git("rev-parse", "main")], meta.dig("config", "refs").map { |r| r["sha"] }
    refute Dir.exist?(File.join(dir, "refs")), "the worktrees are removed"
    assert_equal 1, git("worktree", "list").lines.size
    assert_equal "", git("status", "--porcelain")
    assert_equal "main", git("rev-parse", "--abbrev-ref", "HEAD")
  end
end
