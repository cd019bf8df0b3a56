# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/attribution_text"

# run --profile's decided attribution: frames per request per round, paired
# by round, Benjamini-Hochberg across frames, checked against the decision.
class AttributionTest < Minitest::Test
  S = Rackbench::Stats

  def test_benjamini_hochberg_steps_up
    assert_equal [0, 1, 2], S::FalseDiscovery.discoveries([0.001, 0.02, 0.03, 0.5])
    # 0.02 and 0.03 miss their own thresholds (0.0125, 0.025); 0.036 meets its 0.0375, so all three are found.
    assert_equal [0, 1, 2], S::FalseDiscovery.discoveries([0.02, 0.03, 0.036, 0.9])
    assert_equal [], S::FalseDiscovery.discoveries([0.02, 0.3, 0.4, 0.9])
    assert_in_delta 0.025, S::FalseDiscovery.interval_alpha(2, 4)
  end

  def test_a_paired_difference_is_student_s_t_on_the_rounds
    d = S::PairedDifference.of({ 1 => 1.0, 2 => 1.0, 3 => 1.0 }, { 1 => 2.0, 2 => 2.2, 3 => 1.8, 4 => 9.0 })
    assert_equal 3, d.n
    assert_in_delta 1.0, d.mean
    low, high = d.interval(0.05)
    assert_in_delta 1.0 - 4.303 * 0.2 / Math.sqrt(3), low, 1e-3
    assert_in_delta 1.0 + 4.303 * 0.2 / Math.sqrt(3), high, 1e-3
    assert_operator d.p, :<, 0.05
  end

  # Per process: samples shared as its CPU time; per request over the trial's requests.
  def test_frame_times_are_shares_of_each_process_s_cpu
    profile = record("puma x1:2", 1, requests: 100, frames: { "Fib.fib" => 30, "App#call" => 10 }, cpu_s: 0.4)
    round = S::FrameTimes.of([profile]).fetch(["/fib", 2, "puma x1:2"]).fetch(1)
    assert_in_delta 3.0, round.frames[["Fib.fib", "fib.rb"]] # 30/40 of 400 ms over 100 requests
    assert_in_delta 4.0, round.total
    assert_in_delta 50.0, round.counters["alloc"]
    assert_empty S::FrameTimes.of([profile.merge("missing" => [7])]).fetch(["/fib", 2, "puma x1:2"])
  end

  # B spends +0.4 ms per request more in Fib.fib, every other frame only
  # noise: Fib.fib is named, alone, and the sum checks with the decision.
  def test_the_changed_frame_is_named_and_nothing_else
    attribution = S::Attribution.for(entry(ratio: 0.93), S::FrameTimes.of(profiles(fib_b: 4.4)))
    assert_equal ["Fib.fib"], attribution.named.map(&:name)
    fib = attribution.named.first
    assert_in_delta 0.4, fib.change, 0.05
    assert_operator fib.low, :>, 0.2
    assert_in_delta 0.4, attribution.total.mean, 0.1
    assert_in_delta attribution.total.mean - 0.4, attribution.unexplained, 0.06
    assert attribution.consistent?, attribution.to_h.inspect
    assert_equal 1, attribution.counters.count(&:decided) # alloc grew with the work
    line = S::AttributionText.line(attribution)
    assert_match(/\Apuma x2:1 slower by 7% \(95% CI [\d.]+-[\d.]+%\): \+0\.\d+ ms per request in Fib\.fib \(fib\.rb\) /, line)
    assert_match(/; nothing else changed beyond noise\z/, line)
    assert_match(/consistent\z/, S::AttributionText.check(attribution))
  end

  def test_an_a_a_pair_names_nothing
    attribution = S::Attribution.for(entry(ratio: 1.0), S::FrameTimes.of(profiles(fib_b: 4.0)))
    assert_empty attribution.named
    assert_match(/: no frame or counter changed beyond noise\z/, S::AttributionText.line(attribution))
  end

  # Issue 43, item 2: an N+1 on B (one more "SELECT ... WHERE id = ?" per
  # listed row: +10 a request), the list's own statement the same on both
  # sides. The statement is named with its count change, exact; the other
  # statement is not.
  def test_an_n_plus_one_is_named_by_its_statement_with_its_count
    list = 'SELECT "articles".* FROM "articles" ORDER BY "articles"."id" ASC'
    one = 'SELECT "articles".* FROM "articles" WHERE "articles"."id" = ? LIMIT ?'
    with_sql = profiles(fib_b: 4.0).map do |p|
      b = p["setup"] == "puma x2:1"
      statements = [[list, 1000, 50.0], *([[one, 10_000, 300.0]] if b)]
      p.merge("processes" => p["processes"].map { |pr| pr.merge("sql_count" => b ? 11_000 : 1000, "statements" => statements) })
    end
    attribution = S::Attribution.for(entry(ratio: 0.93), S::FrameTimes.of(with_sql))
    named = attribution.counters.select(&:decided).to_h { |c| [c.name, c.change] }
    assert_equal({ "sql_count" => 10.0, "sql: #{one}" => 10.0 }, named.slice("sql_count", "sql: #{one}"))
    refute named.key?("sql: #{list}"), "the list's statement did not change"
    line = S::AttributionText.line(attribution)
    assert_includes line, "+10.00 SQL queries per request"
    # Rails' own request count, where the dump has it, is the SQL counters'
    # denominator: 1,002 requests finished (2 in flight when the load
    # generator stopped counting) read 1 and 11 queries a request, not 1.002.
    rails = with_sql.map { |p| p.merge("processes" => p["processes"].map { |pr| pr.merge("sql_requests" => 1000) }) }
    p_a = rails.first.merge("processes" => rails.first["processes"].map { |pr| pr.merge("sql_count" => 1002, "sql_requests" => 1002) })
    round = S::FrameTimes.of([p_a]).fetch(["/fib", 2, "puma x1:2"]).fetch(1)
    assert_in_delta 1.0, round.counters["sql_count"], 1e-9
    assert_in_delta 1000.0 / 1002, round.counters["sql: #{list}"], 1e-9
    assert_in_delta 20.0, round.counters["alloc"], 1e-9, "other counters per the trial's requests"
    assert_match(/; \+10\.00 queries per request `#{Regexp.escape(one)}` \(\+9\.\d+ to \+10\.\d+\); nothing else/, line)
  end

  private

  NOISE = [0.03, -0.02, 0.01, -0.04, 0.02, 0.0, -0.01, 0.03].freeze

  # 8 rounds, each side a trial of 1000 requests; fib 4.0 ms per request on A.
  def profiles(fib_b:)
    (1..8).flat_map do |r|
      e = NOISE[r - 1]
      [record("puma x1:2", r, requests: 1000, frames: frames(4.0 + e, e), cpu_s: cpu(4.0 + e, e), alloc: 20_000),
       record("puma x2:1", r, requests: 1000, frames: frames(fib_b - e, -e), cpu_s: cpu(fib_b - e, -e), alloc: 20_000 * fib_b / 4.0)]
    end
  end

  # Samples proportional to ms (1 sample = 0.01 ms per request here).
  def frames(fib, e)
    { "Fib.fib" => (fib * 100).round, "App#call" => ((1.0 + e) * 100).round, "Rack#x" => ((0.5 - e) * 100).round }
  end

  def cpu(fib, e) = (fib + 1.0 + e + 0.5 - e) # ms per request x 1000 requests = s

  def record(setup, round, requests:, frames:, cpu_s:, alloc: 5000)
    { "key" => "#{setup}|#{round}", "setup" => setup, "endpoint" => "/fib", "concurrency" => 2, "repetition" => round,
      "requests" => requests, "errors" => [], "missing" => [],
      "processes" => [{ "pid" => 1, "samples" => frames.values.sum, "cpu_s" => cpu_s, "alloc" => alloc, "gc_count" => 1,
                        "gc_time_ms" => 2, "frames" => frames.map { |n, s| [n, n.start_with?("Fib") ? "fib.rb" : "app.rb", s, s] } }] }
  end

  def entry(ratio:)
    d = Rackbench::Stats::Decision.of([100.0] * 4, [100.0 * ratio * 1.01, 100.0 * ratio * 0.99, 100.0 * ratio * 1.005, 100.0 * ratio * 0.995],
                                      paired: true)
    Rackbench::Stats::Decisions::Entry.new(endpoint: "/fib", level: 2, loop: "closed", a: "puma x1:2", b: "puma x2:1", metric: "rps",
                                           decision: d)
  end
end
