# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/trial_profile"
require "rackbench/plan/setup"
require "rackbench/plan"

# A profile that fails never costs the timed trial: every failure is a
# warning returned after the trial was stored, nothing raised.
class TrialProfileTest < Minitest::Test
  Store = Struct.new(:path) do
    def notice(_text) = nil
  end
  Context = Struct.new(:config, :store, :app)
  Instance = Struct.new(:dir) do
    def workers = []
  end

  def profile(store_path)
    setup = Rackbench::Setup.parse("puma x1:2")
    trial = Rackbench::Plan::Trial.new(setup: setup, endpoint: "/fib", concurrency: 2, repetition: 1)
    context = Context.new({ profile: true }, Store.new(store_path), Struct.new(:root).new("/app"))
    Rackbench::Runner::TrialProfile.for(context, Instance.new(tmpdir), trial)
  end

  def record = { "key" => "k", "setup" => "puma x1:2", "endpoint" => "/fib", "concurrency" => 2, "repetition" => 1, "requests" => 10 }

  def test_no_process_that_profiled_is_a_warning_and_the_profile_line_is_kept
    dir = tmpdir
    p = profile(dir).start
    p.stop
    assert_equal ["puma x1:2 /fib c=2: the profile (--profile) no server process profiled; the trial's figures are kept"], p.store(record)
    assert_equal 1, File.readlines(File.join(dir, "profiles.jsonl")).size
  end

  def test_a_profile_that_cannot_be_stored_is_a_warning
    file = File.join(tmpdir, "not-a-dir")
    File.write(file, "")
    p = profile(file).start
    p.stop
    warnings = p.store(record)
    assert_equal 1, warnings.size
    assert_match(/\Apuma x1:2 \/fib c=2: the profile \(--profile\) was not stored: .*; the trial's figures are kept\z/, warnings.first)
  end

  def test_off_without_profile_or_a_server_of_ours
    context = Context.new({ profile: false }, nil, nil)
    assert_nil Rackbench::Runner::TrialProfile.for(context, Instance.new("/x"), nil)
    assert_nil Rackbench::Runner::TrialProfile.for(Context.new({ profile: true }, nil, nil), nil, nil)
  end
end
