# frozen_string_literal: true

require "test_helper"
require "tmpdir"
require "rackbench/load/wrk_open_loop"
require "rackbench/process_control/child"

# wrk/histogram.lua (the open-loop script's histogram) run under the luajit
# command, the same LuaJIT that Debian's wrk embeds (bin/setup installs it):
# every reported value and every percentile must be within 0.2% of the exact
# figure (the layout promises 0.1% for values of 512 ns and more).
class OpenLoopHistogramTest < Minitest::Test
  HISTOGRAM = File.expand_path("histogram.lua", File.dirname(Rackbench::Load::WrkOpenLoop::SCRIPT))
  MAX_RELATIVE_ERROR = 0.002
  PERCENTILES = [1, 25, 50, 75, 90, 99, 99.9, 99.99, 100].freeze

  def setup
    require_tool!("luajit", !luajit.nil?)
  end

  # Values spread over 1 µs .. 100 s, 0.1% apart: each recorded alone, reported as its bucket's midpoint.
  def test_each_value_comes_back_within_0_2_percent
    values = (0..).lazy.map { |k| 1000.0 * 1.001**k }.take_while { |v| v < 100e9 }.to_a
    midpoints = lua(values, <<~LUA).map { |line| Float(line) }
      for _, v in ipairs(values) do print(string.format("%.17g", H.midpoint(H.index(v)))) end
    LUA
    assert_equal values.size, midpoints.size
    worst = values.zip(midpoints).map { |v, m| (m - v).abs / v }.max
    assert_operator worst, :<=, 0.001, "worst relative error #{worst}"
  end

  # 20,000 latencies from a long-tailed mix (ms-scale body, a few 1-second stalls);
  # percentiles by HdrHistogram's rank rule against the exact sorted values.
  def test_percentiles_of_a_mixed_sample_are_within_0_2_percent
    random = Random.new(1234)
    values = Array.new(20_000) do
      random.rand < 0.02 ? random.rand(5e8..1.1e9) : 2e5 * Math.exp(random.rand * 4)
    end
    got = lua(values, <<~LUA).map { |line| Float(line) }
      local counts, min, max = {}, math.huge, 0
      for _, v in ipairs(values) do
        H.record(counts, v)
        if v < min then min = v end
        if v > max then max = v end
      end
      for _, p in ipairs({ #{PERCENTILES.join(', ')} }) do
        print(string.format("%.17g", H.percentile(counts, #values, p, min, max)))
      end
    LUA
    sorted = values.sort
    PERCENTILES.zip(got).each do |p, value|
      exact = sorted[[(p / 100.0 * sorted.size - 1e-9).ceil, 1].max - 1]
      assert_in_delta exact, value, exact * MAX_RELATIVE_ERROR, "p#{p}"
    end
  end

  def test_index_is_monotonic_and_bounds_hold_the_value
    lines = lua([0, 0.5, 1, 511.9, 1023.99, 1024, 1536.7, 2047.9, 2048, 1e6, 2**37, 2**38 - 1, 2**38, 1e15], <<~LUA)
      print(H.BUCKETS)
      for _, v in ipairs(values) do
        local i = H.index(v)
        local lower, width = H.bounds(i)
        print(string.format("%d %.17g %.17g", i, lower, width))
      end
    LUA
    assert_equal 1024 + 28 * 512, Integer(lines.shift)
    rows = lines.map { |l| l.split.then { |i, lo, w| [Integer(i), Float(lo), Float(w)] } }
    indexes = rows.map(&:first)
    assert_equal indexes.sort, indexes
    assert_equal [0, 0, 1, 511, 1023, 1024], indexes.first(6)
    assert_equal 15_359, indexes.last, "values from 2^38 ns share the last bucket"
    rows.first(11).zip([0, 0.5, 1, 511.9, 1023.99, 1024, 1536.7, 2047.9, 2048, 1e6, 2**37]).each do |(_, lo, w), v|
      assert_operator lo, :<=, v
      assert_operator v, :<, lo + w
    end
  end

  def test_empty_histogram_has_no_percentile
    assert_equal ["nil"], lua([], "print(tostring(H.percentile({}, 0, 50)))")
  end

  private

  # Runs body under luajit with H = histogram.lua and `values` = the given numbers; returns stdout lines.
  def lua(values, body)
    Dir.mktmpdir do |dir|
      script = File.join(dir, "t.lua")
      File.write(script, "local H = dofile(#{HISTOGRAM.dump})\nlocal values = { #{values.map { |v| format('%.17g', v) }.join(', ')} }\n#{body}")
      log = File.join(dir, "out.txt")
      child = Rackbench::ProcessControl::Child.spawn([luajit, script], log_path: log)
      begin
        assert child.wait(20), "luajit did not finish"
      ensure
        child.stop("TERM", timeout: 2)
      end
      out = File.read(log)
      assert child.status.success?, "luajit failed: #{out}"
      out.lines.map(&:chomp)
    end
  end

  def luajit
    @luajit ||= ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).map { |d| File.join(d, "luajit") }
                   .find { |p| File.executable?(p) }
  end
end
