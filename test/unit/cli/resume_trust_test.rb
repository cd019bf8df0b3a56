# frozen_string_literal: true

require "test_helper"
require "json"
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
    stored = { "app" => "/srv/app", "url" => nil, "load_hosts" => ["bench@10.0.0.5", "b2"] }
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a b", stored, {}) }
    assert_equal "/runs/a b names the app /srv/app and the load host(s) bench@10.0.0.5, b2; --resume runs only what you " \
                 "name again, as a run directory is data: rackbench run --resume /runs/a\\ b --app /srv/app " \
                 "--load-host bench@10.0.0.5 --load-host b2", e.message
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a", stored, { app: "/srv/app" }) }
    assert_match(/names the load host\(s\) bench@10.0.0.5, b2; .* --load-host bench@10.0.0.5 --load-host b2\z/, e.message)
    Trust.check!("/runs/a", stored, { app: "/srv/app", load_hosts: ["bench@10.0.0.5", "b2"] })
    Trust.check!("/runs/a", { "url" => "http://127.0.0.1:9/" }, { url: "http://127.0.0.1:9/" })
  end

  def test_a_value_the_run_did_not_use_is_refused
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a", { "app" => "/srv/app" }, { app: "/srv/other" }) }
    assert_equal "--app /srv/other is not what /runs/a was run with (/srv/app); a run is resumed on what it measured: " \
                 "drop it, or start a new run with another --out", e.message
    e = assert_raises(Rackbench::UsageError) { Trust.check!("/runs/a", { "app" => "arena" }, { url: "http://127.0.0.1:9/" }) }
    assert_match(/\A--url http:\/\/127.0.0.1:9\/ is not what \/runs\/a was run with \(none\)/, e.message)
  end

  def test_the_interrupted_runs_hint_names_what_must_be_given_again
    dir = tmpdir
    File.write(File.join(dir, "meta.json"), JSON.generate({ "config" => { "app" => "/srv/my app" } }))
    assert_equal "rackbench run --resume #{dir} --app /srv/my\\ app", Trust.command(dir)
    File.write(File.join(dir, "meta.json"), "not json")
    assert_equal "rackbench run --resume #{dir}", Trust.command(dir)
  end
end
