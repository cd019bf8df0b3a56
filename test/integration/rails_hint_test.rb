# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/workload/app"
require_relative "../support/rails_copy"

# The missing-server hint, followed to the letter on a copy of the built-in
# Rails workload whose Gemfile lacks some servers (and json, as a Rails app's
# usually does): the app still answers 200 under every server of its bundle.
# Passenger is not a gem of the app's bundle (Debian's package runs it).
class RailsHintTest < Minitest::Test
  include Rackbench::RailsCopy

  REMOVED = %w[unicorn falcon json].freeze
  SERVERS = ["puma x1:1", "unicorn x1", "falcon x1", "pitchfork x1", "thin"].freeze

  def test_following_the_hint_keeps_every_page_at_200_under_every_server
    require_tool!("wrk")
    app = rails_copy
    gemfile = File.join(app, "Gemfile")
    drop_gems(app, REMOVED)
    bundle(app, "install", "--local")
    locked = Rackbench::Workload::App.resolve(app)
    REMOVED.each { |gem| assert_nil locked.locked_version(gem), "#{gem} left the lock" }

    setups = SERVERS.flat_map { |s| ["-s", s] }
    out = File.join(tmpdir, "refused")
    status, _out, err = run_cli("run", "--app", app, *setups, "-e", "/hello", "-o", out)
    assert_equal 2, status
    assert_equal "Error: not in your app's bundle: unicorn, falcon — add `gem \"unicorn\", \"6.1.0\"`, " \
                 "`gem \"falcon\", \"0.51.1\"` and `gem \"json\", \"2.6.3\"` (falcon's dependencies would otherwise " \
                 "pull json 3, which breaks Rails) to #{gemfile}, then run `bundle install` in #{app}\n", err
    refute File.exist?(out), "nothing booted"

    # To the letter: the lines as given, then `bundle install` there (--local: offline).
    File.write(gemfile, "#{File.read(gemfile)}#{err.scan(/`(gem [^`]+)`/).flatten.join("\n")}\n")
    bundle(app, "install", "--local")
    fixed = Rackbench::Workload::App.resolve(app)
    assert_equal "0.51.1", fixed.locked_version("falcon")
    assert_match(/\A2\.6\./, fixed.locked_version("json"), "json stays on 2.6 (json 3 breaks Rails on this Ruby)")

    out = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "--app", app, *setups, "-e", "/hello", "-c", "1", "-d", "1", "--warmup", "0",
                                "--cooldown", "0", "-o", out)
    assert_equal 0, status, err
    trials = File.readlines(File.join(out, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal SERVERS.sort, trials.map { |t| t["setup"] }.sort
    trials.each do |t|
      assert t["verified"], "#{t['setup']}: /hello verified (2xx, the workload's content)"
      assert_operator t["requests"], :>, 0, t["setup"]
      assert_equal 0, t["error_total"], "#{t['setup']}: #{t['errors']}"
    end
  end
end
