# frozen_string_literal: true

require "test_helper"
require "rackbench/load"

class LoadFactoryTest < Minitest::Test
  def test_engines_by_name
    assert_instance_of Rackbench::Load::Wrk, Rackbench::Load.engine("wrk")
    assert_instance_of Rackbench::Load::WrkOpenLoop, Rackbench::Load.engine("wrk-open")
    assert_instance_of Rackbench::Load::Fake, Rackbench::Load.engine(:fake)
  end

  def test_unknown_name_suggests_the_closest
    error = assert_raises(Rackbench::UsageError) { Rackbench::Load.engine("wrk2") }
    assert_equal 'unknown load engine "wrk2" (did you mean "wrk"?); accepted: wrk, wrk-open, ab, siege, siege-close, h2load, fake', error.message
  end

  def test_unknown_name_without_a_close_one
    error = assert_raises(Rackbench::UsageError) { Rackbench::Load.engine("jmeter") }
    assert_equal 'unknown load engine "jmeter"; accepted: wrk, wrk-open, ab, siege, siege-close, h2load, fake', error.message
  end
end
