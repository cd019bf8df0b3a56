# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/scenario"

# --scenario's weighted paths: weights above 0, a negative one refused (it
# was read as part of the path).
class ScenarioTest < Minitest::Test
  S = Rackbench::Scenario

  def test_paths_and_weights
    scenario = S.parse("/:5, /posts:3,/search?q=x:2.5,/about")
    assert_equal ["/", "/posts", "/search?q=x", "/about"], scenario.paths
    assert_equal [5.0, 3.0, 2.5, 1.0], scenario.entries.map(&:weight)
  end

  def test_weights_of_zero_or_below_are_refused
    { "/hello:-2,/health:1" => 'the weight of /hello must be above 0 (got -2)',
      "/hello:0" => "the weight of /hello must be above 0 (got 0)",
      "/hello:-0.5" => "the weight of /hello must be above 0 (got -0.5)" }.each do |text, message|
      error = assert_raises(Rackbench::UsageError, text) { S.parse(text) }
      assert_equal "--scenario #{text.inspect}: #{message}", error.message
    end
  end

  # A weight that is not a number was taken as part of the path ("/hello:abc"
  # loaded /hello:abc): refused, naming the weight (issue 46, item 8).
  def test_a_weight_that_is_not_a_number_is_refused
    error = assert_raises(Rackbench::UsageError) { S.parse("/hello:abc,/health:1") }
    assert_equal '--scenario "/hello:abc,/health:1": the weight of /hello must be a number above 0 (got "abc"); ' \
                 "a path with a colon of its own takes its weight after it (/hello:abc:1)", error.message
    assert_equal [["/a:b", 1.0], ["/search?t=10:30", 2.0]], S.parse("/a:b:1,/search?t=10:30:2").entries.map(&:to_a)
  end
end
