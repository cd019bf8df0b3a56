# frozen_string_literal: true

require "test_helper"
require "rackbench/cli/bisect_step"
require "rackbench/search/bisect/path"
require "rackbench/store/run_dir"

# A bisection's step runs `run --quiet`, whose notes go nowhere: the gems
# a commit's Gemfile.lock needed, installed into the user's BUNDLE_PATH
# (from the network, with --fetch-gems), were said nowhere on the
# bisection's screen nor in its directory (ruby-grape/grape-on-rack's
# history, issue 44, where every commit bumps a gem). The run keeps them in
# meta.json's "bundle_installs"; the step reads them back.
class BisectStepInstallsTest < Minitest::Test
  Commit = Rackbench::Search::Bisect::Path::Commit
  GOOD = Commit.new(sha: "e21550f2b3e986e685f05fd57433a77094072ab0", tree: "t1", subject: "good")
  BAD = Commit.new(sha: "189d8b6aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", tree: "t2", subject: "bad")

  # A step whose run is this stored one instead of a measurement.
  class Stored < Rackbench::CLI::BisectStep
    attr_accessor :installs_meta

    def measure(commit, out, _against)
      store = Rackbench::Store::RunDir.create(out)
      store.write_meta({ "config" => { "decide" => true, "max_rounds" => 12, "repeat" => 3 } }.merge(installs_meta))
      [[GOOD.short, [1000, 1010, 990]], [commit.short, [200, 205, 198]]].each do |label, values|
        values.each_with_index do |rps, i|
          store.append_trial({ "endpoint" => "/api/ping", "setup" => label, "concurrency" => 1, "repetition" => i + 1,
                               "rps" => rps, "duration_s" => 2.0, "loop" => "closed" })
        end
      end
      store.unlock
      [1, ""]
    end
  end

  def step(meta)
    stored = Stored.new(dir: tmpdir, good: GOOD, run_argv: [], margin: 0.5, share: 1.0 / 6, env: {})
    stored.installs_meta = meta
    stored.call(BAD, 10)
  end

  def test_the_gems_a_step_installed_are_kept_in_its_step
    installs = [{ "ref" => GOOD.short, "sha" => GOOD.sha, "source" => "the Gemfile's sources",
                  "command" => "bundle install --local, then bundle install", "seconds" => 38.4 }]
    found = step("bundle_installs" => installs)
    assert_equal :bad, found.verdict
    assert_equal ["gems for e21550f's Gemfile.lock installed from the Gemfile's sources (bundle install --local, then " \
                  "bundle install, 38 s)"], found.installs
    assert_equal found.installs, Rackbench::Search::Bisect::Step.from_h(JSON.parse(JSON.generate(found.to_h))).installs
  end

  def test_nothing_installed_says_nothing
    assert_nil step({}).installs
  end
end
