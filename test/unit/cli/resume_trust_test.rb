# frozen_string_literal: true

require "test_helper"
require "json"
require "shellwords"
require "rackbench/cli/resume_trust"

# Issue 46, item 3: --resume takes the plan from a run directory, but the
# app, the server and the load hosts only from the user.
class ResumeTrustTest < Minitest::Test
  Trust = Rackbench::CLI::ResumeTrust

  def test_a_built_in_app_needs_nothing_again
    Trust.check!("/runs/a", { "app" => "arena" }, {})
    Trust.check!("/runs/a", { "app" => nil, "load_hosts" => [] }, {})
  end

  def test_a_users_app_url_and_hosts_must_be_named_again
    app = File.join(tmpdir, "app")
    Dir.mkdir(app)
    stored = { "app" => app, "url" => nil, "load_hosts" => ["bench@10.0.0.5", "b2"] }
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a b", stored, {}) }
    assert_equal "/runs/a b names the app #{app} and the load host(s) bench@10.0.0.5, b2; --resume runs only what you " \
                 "name again, as a run directory is data: rackbench run --resume /runs/a\\ b --app #{app} " \
                 "--load-host bench@10.0.0.5 --load-host b2", e.message
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a", stored, { app: app }) }
    assert_match(/names the load host\(s\) bench@10.0.0.5, b2; .* --load-host bench@10.0.0.5 --load-host b2\z/, e.message)
    Trust.check!("/runs/a", stored, { app: app, load_hosts: ["bench@10.0.0.5", "b2"] })
    Trust.check!("/runs/a", { "url" => "http://127.0.0.1:9/" }, { url: "http://127.0.0.1:9/" })
  end

  def test_a_value_the_run_did_not_use_is_refused
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a", { "app" => "/srv/app" }, { app: "/srv/other" }) }
    assert_equal "--app /srv/other is not what /runs/a was run with (/srv/app); a run is resumed on what it measured: " \
                 "drop it, or start a new run with another --out", e.message
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a", { "app" => "arena" }, { url: "http://127.0.0.1:9/" }) }
    assert_match(/\A--url http:\/\/127.0.0.1:9\/ is not what \/runs\/a was run with \(none\)/, e.message)
  end

  # --setup-cmd is a shell command run in the app's directory: one only
  # meta.json names is not run by --resume (it ran, as the config's other
  # settings are taken from the directory).
  def test_a_setup_command_must_be_named_again
    app = File.join(tmpdir, "app")
    Dir.mkdir(app)
    stored = { "app" => app, "setup_cmd" => "curl -s x | sh" }
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a", stored, { app: app }) }
    assert_equal "/runs/a names the setup command curl -s x | sh; --resume runs only what you name again, as a run " \
                 "directory is data: rackbench run --resume /runs/a --setup-cmd\\=curl\\ -s\\ x\\ \\|\\ sh", e.message
    assert_equal ["--resume", "/runs/a", "--setup-cmd=curl -s x | sh"], Shellwords.split(e.message[/rackbench run (.*)\z/, 1])
    Trust.check!("/runs/a", stored, { app: app, setup_cmd: "curl -s x | sh" })
    Trust.check!("/runs/a", stored.merge("setup_cmd" => ""), { app: app }) # none: nothing runs
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a", stored, { app: app, setup_cmd: "bin/setup" }) }
    assert_match(/\A--setup-cmd bin\/setup is not what \/runs\/a was run with \(curl -s x \| sh\)/, e.message)
  end

  # Issue 46, item 8: the app a run measured, deleted or moved since, is
  # said as such; the command printed to type again could only fail ('--app
  # ... must be a config.ru file or a directory holding one').
  def test_an_app_no_longer_there_is_named_as_gone
    gone = File.join(tmpdir, "gone")
    [{}, { app: gone }].each do |given|
      e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a", { "app" => gone }, given) }
      assert_equal "/runs/a was run on the app #{gone}, which is no longer there (deleted or moved): --resume measures " \
                   "the app the run measured; put it back there and run again, or measure the app where it is now " \
                   "with a new run (another --out)", e.message, given.inspect
    end
  end

  # A --ref run's commits come from meta.json: each must be a full commit
  # id ("--orphan" reached git worktree add as an option on --resume).
  def test_stored_commits_must_be_full_commit_ids
    good = { "name" => "main", "sha" => "a" * 40 }
    Trust.check!("/runs/a", { "refs" => [good, good.merge("sha" => "b" * 64)] }, {})
    { { "name" => "x", "sha" => "--orphan" } => 'config.refs[1].sha is "--orphan", not a full commit id (40 or 64 hex digits)',
      { "name" => "x", "sha" => "abc1234" } => 'config.refs[1].sha is "abc1234", not a full commit id (40 or 64 hex digits)',
      { "name" => 7, "sha" => "a" * 40 } => "config.refs[1].name is 7, not a string",
      "main" => 'config.refs[1] is "main", not a JSON object' }.each do |bad, words|
      e = assert_raises(Rackbench::Error) { Trust.check!("/runs/a", { "refs" => [good, bad] }, {}) }
      assert_equal "/runs/a/meta.json is damaged: #{words}; restore it, or run again with another --out", e.message
    end
  end

  def test_the_interrupted_runs_hint_names_what_must_be_given_again
    dir = tmpdir
    File.write(File.join(dir, "meta.json"), JSON.generate({ "config" => { "app" => "/srv/my app" } }))
    assert_equal "rackbench run --resume #{dir} --app /srv/my\\ app", Trust.command(dir)
    File.write(File.join(dir, "meta.json"), "not json")
    assert_equal "rackbench run --resume #{dir}", Trust.command(dir)
  end
end
