# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require_relative "../../support/lanes"

# rake test:lanes deals the suite's files to lanes, longest first, each to
# the lane with the fewest seconds so far; the timings file names files
# that exist.
class LanesTest < Minitest::Test
  def test_longest_first_to_the_least_loaded_lane
    times = { "a" => 10.0, "b" => 7.0, "c" => 6.0, "d" => 4.0, "e" => 3.0 }
    lanes = Rackbench::Lanes.partition(%w[a b c d e], 2, times)
    # a (10) to lane 1; b (7) to 2; c (6) to 2 (13); d (4) to 1 (14); e (3) to 2, which has 13 (16)
    assert_equal [%w[a d], %w[b c e]], lanes
    assert_equal [14.0, 16.0], lanes.map { |fs| fs.sum { |f| times[f] } }
  end

  def test_an_unmeasured_file_counts_as_a_middling_one_and_empty_lanes_are_dropped
    lanes = Rackbench::Lanes.partition(%w[x y], 4, { "x" => 1.0 })
    assert_equal [%w[y], %w[x]], lanes, "y (unmeasured: #{Rackbench::Lanes::DEFAULT_SECONDS} s) goes first"
  end

  def test_each_lane_keeps_the_order_given
    lanes = Rackbench::Lanes.partition(%w[c b a], 1, { "a" => 3.0, "b" => 2.0, "c" => 1.0 })
    assert_equal [%w[c b a]], lanes
  end

  def test_the_timings_name_files_of_the_suite
    root = File.expand_path("../../..", __dir__)
    missing = Rackbench::Lanes.seconds.keys.reject { |f| File.file?(File.join(root, f)) }
    assert_empty missing, "test/lane_times.json names files that are gone: measure again (docs/development.md)"
  end

  def test_the_totals_sum_every_lane_and_name_one_that_ended_early
    Dir.mktmpdir do |dir|
      logs = { "a" => "...\n3 runs, 10 assertions, 0 failures, 0 errors, 0 skips\n", "b" => "2 runs, 5 assertions, 1 failures, 0 errors, 1 skips\n",
               "c" => "Error: killed\n" }.map do |name, text|
        File.write(File.join(dir, name), text)
        { name: name, log: File.join(dir, name) }
      end
      assert_equal "5 runs, 15 assertions, 1 failures, 0 errors, 1 skips (no totals from c: ended early)", Rackbench::Lanes.totals(logs)
      assert_equal "3 runs, 10 assertions, 0 failures, 0 errors, 0 skips", Rackbench::Lanes.totals(logs.first(1))
    end
  end
end
