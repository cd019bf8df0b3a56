# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/report/formats"
require "rackbench/report/speedscope"
require "rackbench/store/run_dir"
require_relative "profile_stacks_fixture"

# run --profile's stacks as a speedscope file (`report --format speedscope`,
# and speedscope.json in the run directory), referenced from the
# JSON report's profiles[].
class SpeedscopeTest < Minitest::Test
  F = Rackbench::ProfileStacksFixture
  R = Rackbench::Report

  def document(profiles = F.profiles)
    JSON.parse(R::Speedscope.new(Rackbench::Stats::FrameStacks.of(profiles), name: "run").string)
  end

  def test_the_file_has_the_schema_s_required_keys_and_one_sampled_profile_per_setup
    doc = document
    assert_equal "https://www.speedscope.app/file-format-schema.json", doc["$schema"]
    frames = doc.fetch("shared").fetch("frames")
    assert_equal ["App#call (app.rb)", "Fib.fib (app/fib.rb)", "Slow#shrink (app/slow.rb)", "#{F::EVIL} (app/<b>.rb)"].sort,
                 frames.map { |f| f["name"] }.sort
    assert_equal({ "name" => "Fib.fib (app/fib.rb)", "file" => "app/fib.rb" }, frames.find { |f| f["name"].start_with?("Fib") })
    assert_equal ["#{F::A} · /fib · c=2 (6 rounds)", "#{F::B} · /fib · c=2 (6 rounds)"], doc["profiles"].map { |p| p["name"] }
    doc["profiles"].each do |profile|
      assert_equal %w[type name unit startValue endValue samples weights], profile.keys
      assert_equal ["sampled", "none", 0], profile.values_at("type", "unit", "startValue")
      assert_equal profile["samples"].size, profile["weights"].size
      assert_equal profile["weights"].sum, profile["endValue"]
      assert(profile["samples"].flatten.all? { |i| i.between?(0, frames.size - 1) })
      assert_equal "App#call (app.rb)", frames[profile["samples"].first.first]["name"], "root first"
    end
    assert_equal F::NOISE.sum { |e| (400 * (1 + e)).round }, weight(doc, 0, "Fib.fib (app/fib.rb)"), "merged over the 6 rounds"
  end

  def test_the_same_profiles_in_any_order_give_the_same_bytes
    one = R::Speedscope.new(Rackbench::Stats::FrameStacks.of(F.profiles)).string
    assert_equal one, R::Speedscope.new(Rackbench::Stats::FrameStacks.of(F.profiles.reverse)).string
    shuffled = F.profiles.map do |p|
      process = p["processes"].first
      order = process["stack_frames"].each_index.to_a.reverse
      moved = process.merge("stack_frames" => order.map { |i| process["stack_frames"][i] },
                            "stacks" => process["stacks"].reverse.map { |n, path| [n, path.map { |i| order.index(i) }] })
      p.merge("processes" => [moved])
    end
    assert_equal one, R::Speedscope.new(Rackbench::Stats::FrameStacks.of(shuffled)).string
  end

  def test_a_run_without_stacks_is_told_what_to_do
    old = F.profiles.map { |p| p.merge("processes" => p["processes"].map { |q| q.except("stacks", "stack_frames") }) }
    e = assert_raises(Rackbench::Error) { document(old) }
    assert_match(/\Ano stacks are stored in this run directory: profile it with `rackbench run --profile`/, e.message)
  end

  def test_report_writes_it_and_the_json_report_says_where_each_side_is
    dir = run_dir
    status, out, err = run_cli("report", dir, "--format", "speedscope")
    assert_equal 0, status, err
    assert_equal document, JSON.parse(out).merge("name" => "run")
    json = JSON.parse(run_cli("report", dir, "--format", "json")[1])
    assert_equal [{ "setup" => F::A, "endpoint" => "/fib", "level" => 2, "file" => "speedscope.json", "profile_index" => 0,
                    "samples" => 4800, "rounds" => 6 },
                  { "setup" => F::B, "endpoint" => "/fib", "level" => 2, "file" => "speedscope.json", "profile_index" => 1,
                    "samples" => 4680, "rounds" => 6 }], json["profiles"]
    assert_equal 1, json["attributions"].size
  end

  private

  def weight(doc, index, name)
    frame = doc["shared"]["frames"].index { |f| f["name"] == name }
    profile = doc["profiles"][index]
    profile["samples"].each_with_index.sum { |path, i| path.include?(frame) ? profile["weights"][i] : 0 }
  end

  def run_dir = F.write_run(File.join(tmpdir, "run"))
end
