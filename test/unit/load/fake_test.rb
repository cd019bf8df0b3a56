# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "rackbench/load/fake"
require_relative "../../support/engine_contract"

class FakeEngineTest < Minitest::Test
  include EngineContract

  def engine
    @engine ||= Rackbench::Load::Fake.new(rps: 1000, latency_ms: 5.0)
  end

  def url
    "http://127.0.0.1:9/"
  end

  def engine_without_program
    Rackbench::Load::Fake.new(available: false)
  end

  def test_results_follow_the_parameters
    result = run_fake(Rackbench::Load::Fake.new(rps: 200, latency_ms: 2.0, errors: { status: 3 }),
                      concurrency: 4, duration: 2.5)
    assert_equal 500, result.requests
    assert_in_delta 200.0, result.rps
    assert_in_delta 2.0, result.latency_ms["p50"]
    assert_equal({ "connect" => 0, "read" => 0, "write" => 0, "timeout" => 0, "status" => 3 }, result.errors)
  end

  def test_hook_varies_results_by_call
    fake = Rackbench::Load::Fake.new(hook: ->(call) { { rps: 100.0 * call.concurrency } })
    assert_in_delta 300.0, run_fake(fake, concurrency: 3).rps
    assert_in_delta 800.0, run_fake(fake, concurrency: 8).rps
  end

  def test_records_calls
    fake = Rackbench::Load::Fake.new
    run_fake(fake, concurrency: 2)
    run_fake(fake, concurrency: 5)
    assert_equal [2, 5], fake.calls.map(&:concurrency)
    assert_equal "http://127.0.0.1:9/", fake.calls.first.url
  end

  def test_hook_can_act_out_a_failed_run
    fake = Rackbench::Load::Fake.new(hook: ->(_call) { raise Rackbench::Error, "wrk failed: boom" })
    error = assert_raises(Rackbench::Error) { run_fake(fake) }
    assert_equal "wrk failed: boom", error.message
  end

  def test_unavailable_fake_has_no_version_and_refuses_to_run
    fake = Rackbench::Load::Fake.new(available: false)
    refute fake.available?
    assert_nil fake.version
    assert_raises(Rackbench::Error) { run_fake(fake) }
  end

  private

  def run_fake(fake, concurrency: 2, duration: 1)
    Dir.mktmpdir do |dir|
      fake.run(url: url, concurrency: concurrency, duration: duration, log_path: File.join(dir, "load.log"))
    end
  end
end
