# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/pool_check"
require "rackbench/plan/setup"

# Threads above the Active Record pool the probe read in the workers: one warning naming both and where each is set.
class PoolCheckTest < Minitest::Test
  def readings(size) = { 11 => { "requests" => 9, "pool_size" => size }, 12 => { "requests" => 7, "pool_size" => size } }

  def test_threads_above_the_pool_are_named
    text = Rackbench::Runner::PoolCheck.warning(Rackbench::Setup.parse("puma x2:8"), readings(5))
    assert_match(/\Apuma x2:8: 8 threads per process \(the setup's label\) share an Active Record pool of 5 connections per process \(config\/database.yml's pool:, in a Rails app usually ENV\["RAILS_MAX_THREADS"\], 5 by default\)/, text)
    assert_match(/set the pool to 8, or run 5 threads\z/, text)
  end

  def test_silent_when_the_pool_is_enough_or_unknown
    assert_nil Rackbench::Runner::PoolCheck.warning(Rackbench::Setup.parse("puma x2:5"), readings(5))
    assert_nil Rackbench::Runner::PoolCheck.warning(Rackbench::Setup.parse("puma x2:8"), { 11 => { "requests" => 3 } }), "no Active Record"
    assert_nil Rackbench::Runner::PoolCheck.warning(Rackbench::Setup.parse("unicorn x4"), readings(1))
    assert_nil Rackbench::Runner::PoolCheck.warning(Rackbench::Setup.parse("falcon x2"), readings(1)), "fibers hold no thread per request"
  end
end
