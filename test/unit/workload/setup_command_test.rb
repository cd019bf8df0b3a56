# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "rackbench/workload/app"
require "rackbench/workload/setup_command"

# Which setup a commit's worktree gets (issue 44, item 2): the user's
# --setup-cmd, none with --no-setup-cmd (""), else bin/rails db:prepare for
# a Rails-shaped app with a database (chosen, never booted here), else none;
# and what a run of one reports (its status, its last lines, a timeout).
class SetupCommandTest < Minitest::Test
  S = Rackbench::Workload::SetupCommand

  def app(rails: false, database: false)
    root = tmpdir
    File.write(File.join(root, "config.ru"), "run ->(_) { [200, {}, ['ok']] }\n")
    FileUtils.mkdir_p(File.join(root, "bin"))
    FileUtils.mkdir_p(File.join(root, "config"))
    File.write(File.join(root, "bin", "rails"), "#!/usr/bin/env ruby\nabort 'not booted in this test'\n") if rails
    File.write(File.join(root, "config", "database.yml"), "production:\n  adapter: sqlite3\n") if database
    Rackbench::Workload::App.new(config_ru: File.join(root, "config.ru"))
  end

  def test_a_rails_app_with_a_database_gets_db_prepare_by_default
    choice = S.choose(app(rails: true, database: true), nil)
    assert_equal ["bin/rails db:prepare", true], [choice.command, choice.default]
  end

  def test_no_default_without_bin_rails_or_a_database
    assert_nil S.choose(app(rails: true), nil), "bin/rails without config/database.yml"
    assert_nil S.choose(app(database: true), nil), "config/database.yml without bin/rails"
    assert_nil S.choose(app, nil)
  end

  def test_the_users_command_replaces_the_default_and_empty_turns_it_off
    rails = app(rails: true, database: true)
    choice = S.choose(rails, "bin/setup --skip-server")
    assert_equal ["bin/setup --skip-server", false], [choice.command, choice.default]
    assert_nil S.choose(rails, ""), "--no-setup-cmd (or --setup-cmd '')"
    assert_nil S.choose(rails, "  ")
  end

  def test_a_run_says_its_status_and_last_lines_in_the_apps_directory
    a = app
    log = File.join(tmpdir, "logs", "setup.log")
    ok = S.run(a, "pwd; echo \"gemfile=${BUNDLE_GEMFILE:-none} env=$RAILS_ENV\"", log: log)
    assert ok.ok?
    assert_equal 0, ok.status
    assert_equal "#{File.realpath(a.root)} | gemfile=none env=production", ok.tail, "rackbench's own BUNDLE_GEMFILE is not the app's"
    failed = S.run(a, "for i in 1 2 3 4 5; do echo line $i; done; exit 7", log: log)
    refute failed.ok?
    assert_equal [7, "exited with status 7", "line 3 | line 4 | line 5"], [failed.status, failed.said, failed.tail]
  end

  def test_a_command_past_its_timeout_is_stopped
    result = S.run(app, "echo started; sleep 30", log: File.join(tmpdir, "setup.log"), timeout: 0.3)
    refute result.ok?
    assert_nil result.status
    assert_equal ["did not finish within 0.3 s (stopped)", "started"], [result.said, result.tail]
    assert result.seconds < 10, result.seconds.to_s
  end
end
