# frozen_string_literal: true

require "test_helper"
require "rackbench/load"

# siege 4.0.7 now and then never exits after its timer: a hung run is run
# once more; a second hang is the error.
class SiegeRetryTest < Minitest::Test
  def siege_with(outcomes)
    engine = Rackbench::Load::Siege.new
    calls = 0
    engine.define_singleton_method(:available?) { true }
    engine.define_singleton_method(:run_once) do |*|
      calls += 1
      outcome = outcomes.shift
      raise Rackbench::Load::Program::Hung, "siege did not finish" if outcome == :hang

      outcome
    end
    [engine, -> { calls }]
  end

  def test_a_hung_run_is_run_once_more
    engine, calls = siege_with([:hang, :result])
    assert_equal :result, engine.run(url: "http://127.0.0.1:9/", concurrency: 1, duration: 1, log_path: File::NULL)
    assert_equal 2, calls.call
  end

  def test_two_hangs_are_the_error
    engine, calls = siege_with(%i[hang hang result])
    assert_raises(Rackbench::Load::Program::Hung) do
      engine.run(url: "http://127.0.0.1:9/", concurrency: 1, duration: 1, log_path: File::NULL)
    end
    assert_equal 2, calls.call
  end
end
