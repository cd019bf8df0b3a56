# frozen_string_literal: true

require "test_helper"
require "json"
require "fileutils"

# run --profile on real servers: every worker of every boot profiled in each
# trial, its dump stored in profiles.jsonl after the trial; bad input refused
# before anything boots.
class ProfileTest < Minitest::Test
  def test_every_worker_of_every_setup_is_profiled_in_each_trial
    require_tool!("wrk")
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "--profile", "-s", "puma x2:1", "-s", "puma x1:2", "-e", "/fibonacci/20",
                                "-c", "2", "-d", "1", "--warmup", "0.5", "-q", "-o", dir)
    assert_equal 0, status, err
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    profiles = File.readlines(File.join(dir, "profiles.jsonl")).map { |l| JSON.parse(l) }
    setups = File.readlines(File.join(dir, "setups.jsonl")).map { |l| JSON.parse(l) }
    assert_equal trials.map { |t| t["key"] }.sort, profiles.map { |p| p["key"] }.sort
    profiles.each do |profile|
      workers = setups.find { |s| s["setup"] == profile["setup"] }.fetch("worker_pids")
      assert_empty workers - profile["processes"].map { |p| p["pid"] }, profile.except("processes").inspect
      fib = profile["processes"].flat_map { |p| p["frames"] }.select { |f| f[0].end_with?("Fibonacci.fib") }
      assert_equal ["fibonacci.rb"], fib.map { |f| f[1] }.uniq, "named relative to the arena's root"
      assert_operator fib.sum { |f| f[2] }, :>, 10, "fib's own samples"
      assert profile["processes"].all? { |p| p["cpu_s"].positive? && p["alloc"].positive? }
      assert_empty profile["errors"]
    end
  end

  # The run leaves each setup's stacks, merged over its rounds, in one
  # speedscope file, and the JSON report says where each side's profile is.
  def test_a_profiled_run_leaves_a_speedscope_file_with_each_setup_s_samples
    require_tool!("wrk")
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "--profile", "-s", "puma x1:1", "-s", "unicorn x1", "-e", "/fibonacci/20",
                                "-c", "1", "-d", "1", "-r", "2", "--warmup", "0.5", "-q", "-o", dir)
    assert_equal 0, status, err
    assert_match(%r{^Profiles: #{Regexp.escape(dir)}/speedscope\.json \(open it in speedscope\)$}, err)
    doc = JSON.parse(File.read(File.join(dir, "speedscope.json")))
    assert_equal "https://www.speedscope.app/file-format-schema.json", doc["$schema"]
    frames = doc["shared"]["frames"].map { |f| f["name"] }
    assert_includes frames, "Rackbench::Workload::Arena::Fibonacci.fib (fibonacci.rb)"
    assert_equal ["puma x1:1 · /fibonacci/20 · c=1 (2 rounds)", "unicorn x1 · /fibonacci/20 · c=1 (2 rounds)"],
                 doc["profiles"].map { |p| p["name"] }
    doc["profiles"].each do |profile|
      assert_equal "sampled", profile["type"]
      assert_operator profile["weights"].sum, :>, 0, profile["name"]
      assert_equal profile["weights"].sum, profile["endValue"]
    end
    status, out, err = run_cli("report", dir, "--format", "speedscope")
    assert_equal [0, File.read(File.join(dir, "speedscope.json"))], [status, out], err
    profiles = JSON.parse(run_cli("report", dir, "--format", "json")[1])["profiles"]
    assert_equal [["puma x1:1", 0], ["unicorn x1", 1]], profiles.map { |p| p.values_at("setup", "profile_index") }
    assert(profiles.all? { |p| p["samples"].positive? && p["file"] == "speedscope.json" })
  end

  def test_a_server_at_url_is_not_profiled
    status, _out, err = run_cli("run", "--profile", "--url", "http://127.0.0.1:9/", "-d", "1")
    assert_equal 2, status
    assert_match(/\AError: --profile runs inside a server rackbench boots; the server at --url is your own/, err)
  end

  def test_an_app_without_stackprof_in_its_bundle_is_told_before_any_boot
    app = tmpdir
    File.write(File.join(app, "config.ru"), "run ->(_) { [200, {}, [\"ok\"]] }\n")
    File.write(File.join(app, "Gemfile"), "gem \"puma\"\n")
    File.write(File.join(app, "Gemfile.lock"), "GEM\n  specs:\n    puma (8.0.2)\n\nDEPENDENCIES\n  puma\n")
    out = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "--profile", "--app", app, "-s", "puma x1:1", "-s", "puma x1:2", "-d", "1", "-o", out)
    assert_equal 2, status, err
    assert_equal 1, err.lines.size, err
    assert_match(/\AError: --profile: stackprof is not in your app's bundle .*add `gem "stackprof", "0\.2\.28"`/, err)
    refute File.exist?(File.join(out, "setups.jsonl")), "nothing booted"
  end
end
