# frozen_string_literal: true

require "test_helper"
require "json"
require "bundler"
require "fileutils"
require_relative "../support/fixture_bundle"

# "on yjit" is what runs, in apps with a bundle too: Bundler execs a fresh
# Ruby for this machine's gem executables (`#!/usr/bin/env ruby3.1`), which a
# `--yjit` on the first command line never reached. Each trial stores what
# every worker said from inside (Runtime::Check), asserted here per process.
class RuntimeYjitTest < Minitest::Test
  include Rackbench::FixtureBundle
  FIXTURE = File.expand_path("../fixtures/apps/bundled", __dir__)

  def trials(dir)
    File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
  end

  def setups(dir)
    File.readlines(File.join(dir, "setups.jsonl")).map { |l| JSON.parse(l) }
  end

  # Every worker of a setup "on yjit" ran YJIT, every worker of the others did not.
  def assert_runtime_as_labelled(dir, expected_setups)
    assert_equal expected_setups.sort, trials(dir).map { |t| t["setup"] }.uniq.sort
    trials(dir).each do |t|
      rt = t["runtime"]
      yjit = t["setup"].end_with?(" on yjit")
      workers = setups(dir).find { |s| s["setup"] == t["setup"] && s["status"] == "ok" }["worker_pids"]
      assert_equal workers.size, rt["processes"], "#{t['setup']}: every worker checked (#{rt.inspect})"
      assert_operator rt["processes"], :>=, 1
      assert_equal yjit, rt["yjit_expected"]
      assert_equal yjit ? rt["processes"] : 0, rt["on"], "#{t['setup']}: YJIT on in #{rt['on']} of #{rt['processes']}"
      assert_equal 0, rt["unknown"], "#{t['setup']}: every worker loaded the probe"
      assert_operator t["requests"], :>, 0
    end
  end

  def test_yjit_takes_in_a_bundled_app_and_is_checked_in_every_worker
    app = File.join(tmpdir, "myapp")
    FileUtils.cp_r(FIXTURE, app)
    install_fixture_bundle(app)
    out = File.join(tmpdir, "run")
    labels = ["puma x2:2 on yjit", "unicorn x2 on yjit", "puma x2:2", "unicorn x2"]
    status, _stdout, err = run_cli("run", "--app", app, *labels.flat_map { |l| ["-s", l] }, "-e", "/", "-c", "2",
                                   "-d", "1", "--warmup", "0", "-o", out, env: { "RUBY_YJIT_ENABLE" => "1" })
    assert_equal 0, status, err
    assert_runtime_as_labelled(out, labels)
    setups(out).each { |s| assert_equal s["setup"].end_with?(" on yjit"), s.dig("env", "RUBYOPT").include?("--yjit") }
  end

  # The issue's "done when": the built-in Rails workload (a real bundle),
  # Puma, Unicorn and Pitchfork, with and without the word.
  def test_yjit_takes_in_the_built_in_rails_app_for_each_forking_server
    out = File.join(tmpdir, "run")
    labels = ["puma x2:5", "unicorn x2", "pitchfork x2"].flat_map { |l| [l, "#{l} on yjit"] }
    status, _stdout, err = run_cli("run", "--app", "rails", *labels.flat_map { |l| ["-s", l] }, "-e", "/hello",
                                   "-c", "1", "-d", "1", "--warmup", "0", "-o", out)
    assert_equal 0, status, err
    assert_runtime_as_labelled(out, labels)
  end
end
