# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/setup"

class SetupTest < Minitest::Test
  def parse(text)
    Rackbench::Setup.parse(text)
  end

  def test_parses_the_seed_notation
    s = parse("puma x4:5")
    assert_equal ["puma", 4, 5, true], [s.server, s.workers, s.threads, s.preload]
    assert_equal 20, s.capacity
    u = parse("unicorn x8")
    assert_equal ["unicorn", 8, 1], [u.server, u.workers, u.threads]
    assert_equal 1, parse("thin").workers
    assert_equal 2, parse("passenger x2").workers
  end

  def test_defaults_and_flags
    assert_equal 5, parse("puma x2").threads
    refute parse("puma x2:3 nopreload").preload
    assert_equal "puma x2:3", parse("  puma   x2:3 ").label
  end

  def test_a_proxy_in_front
    assert_equal %w[nginx thruster], [parse("thin behind nginx").front, parse("puma x2:5 behind thruster").front]
    assert_equal ["puma", 2, 5], parse("puma x2:5 behind thruster").then { |s| [s.server, s.workers, s.threads] }
    assert_nil parse("puma x2:5").front
    e = assert_raises(Rackbench::UsageError) { parse("puma x2:5 behind thrustr") }
    assert_match(/cannot put "thrustr" in front \(did you mean "thruster"\?\); accepted: behind nginx, behind thruster/, e.message)
    assert_match(/"behind thruster" is not offered on jruby/, assert_raises(Rackbench::UsageError) { parse("puma x1:4 behind thruster on jruby") }.message)
  end

  def test_unknown_server_suggests_the_nearest
    e = assert_raises(Rackbench::UsageError) { parse("pumma x2:5") }
    assert_match(/unknown server "pumma"/, e.message)
    assert_match(/did you mean "puma"/, e.message)
    assert_match(/accepted servers: puma, unicorn, thin, passenger/, e.message)
  end

  def test_rejects_impossible_counts
    assert_match(/workers must be 1\.\.256 \(got 0\)/, assert_raises(Rackbench::UsageError) { parse("puma x0:5") }.message)
    assert_match(/single-threaded/, assert_raises(Rackbench::UsageError) { parse("unicorn x2:4") }.message)
    assert_match(/runs one process/, assert_raises(Rackbench::UsageError) { parse("thin x2") }.message)
    assert_match(/threads must be/, assert_raises(Rackbench::UsageError) { parse("puma x2:0") }.message)
    assert_match(/cannot read "fast"/, assert_raises(Rackbench::UsageError) { parse("puma x2:5 fast") }.message)
    assert_match(/empty setup name/, assert_raises(Rackbench::UsageError) { parse("  ") }.message)
  end
end
