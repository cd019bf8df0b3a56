# frozen_string_literal: true

require "test_helper"

# test_helper's require_tool! and skip: a missing tool skips on a developer's
# machine and fails in CI, where no test may skip at all.
class RequireToolTest < Minitest::Test
  def with_ci(value)
    saved = ENV.fetch("CI", nil)
    ENV["CI"] = value
    yield
  ensure
    ENV["CI"] = saved
  end

  def test_a_missing_tool_skips_locally_and_fails_in_ci
    with_ci(nil) do
      e = assert_raises(Minitest::Skip) { require_tool!("rackbench-no-such-tool") }
      assert_equal "rackbench-no-such-tool is not installed (bin/setup installs it)", e.message
    end
    with_ci("true") do
      e = assert_raises(Minitest::Assertion) { require_tool!("rackbench-no-such-tool") }
      refute_kind_of Minitest::Skip, e
      assert_match(/rackbench-no-such-tool is not installed .*; in CI every tool must be there/, e.message)
      e = assert_raises(Minitest::Assertion) { skip "anything" }
      refute_kind_of Minitest::Skip, e
      assert_equal "skipped in CI: anything", e.message
    end
  end

  def test_a_present_tool_passes
    with_ci("true") do
      assert_nil require_tool!("ruby")
      assert_nil require_tool!("anything", true)
    end
  end
end
