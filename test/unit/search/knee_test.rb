# frozen_string_literal: true

require "test_helper"
require "rackbench/search/knee"
require "rackbench/stats/slo"

class KneeTest < Minitest::Test
  def test_integer_levels_double_then_bisect_to_the_boundary
    knee = Rackbench::Search::Knee.new(start: 1, min: 1, max: 10_000, integer: true, max_steps: 12, precision: 0)
    r = knee.find { |c| [c <= 37, nil] }
    assert_equal 37, r.pass
    assert_equal 38, r.fail
    assert_equal [1, 2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 37], r.steps.map(&:level)
  end

  def test_stops_at_max_steps_with_the_bracket_found_so_far
    knee = Rackbench::Search::Knee.new(start: 1, min: 1, max: 10_000, integer: true, max_steps: 10, precision: 0)
    r = knee.find { |c| [c <= 37, nil] }
    assert_equal 10, r.steps.size
    assert_equal [36, 40], [r.pass, r.fail]
  end

  def test_rates_stop_within_precision_and_can_search_down
    knee = Rackbench::Search::Knee.new(start: 400.0, min: 1.0, max: 100_000.0, integer: false)
    r = knee.find { |rate| [rate <= 190, nil] }
    assert_operator r.pass, :<=, 190
    assert_operator r.fail, :<=, r.pass * 1.1
    assert_equal [400.0, 200.0, 100.0], r.steps.first(3).map(&:level)
  end

  def test_a_level_the_client_could_not_hold_stops_the_search_there
    knee = Rackbench::Search::Knee.new(start: 293.7, min: 1.0, max: 400.0, integer: false)
    r = knee.find { |rate| [rate > 200 ? :client : true, nil] }
    assert_equal [293.7], r.steps.map(&:level), "no halving below a level that says nothing about the server"
    assert_equal [nil, nil, 293.7], [r.pass, r.fail, r.bound]

    r = Rackbench::Search::Knee.new(start: 100.0, min: 1.0, max: 400.0, integer: false)
                               .find { |rate| [rate > 150 ? :client : true, nil] }
    assert_equal [100.0, 200.0], r.steps.map(&:level)
    assert_equal [100.0, nil, 200.0], [r.pass, r.fail, r.bound]
  end

  def test_nothing_passes
    knee = Rackbench::Search::Knee.new(start: 4, min: 1, max: 100, integer: true)
    r = knee.find { [false, nil] }
    assert_nil r.pass
    assert_equal 1, r.fail
  end
end

class SloTest < Minitest::Test
  SLO = Rackbench::Stats::Slo.new(p99_ms: 500, error_rate: 0.001, health: true)

  def record(p99: 100, requests: 1000, errors: 0, **extra)
    { "latency_ms" => { "p99" => p99 }, "requests" => requests, "error_total" => errors }.merge(extra.transform_keys(&:to_s))
  end

  def test_passes_and_fails_with_reasons
    assert SLO.judge(record).pass
    assert_match(/p99 2.10 s over 500 ms/, SLO.judge(record(p99: 2100)).reason)
    assert_match(/errors 0.50% over 0.1%/, SLO.judge(record(errors: 5, requests: 995)).reason)
    assert_match(/invalid trial: rate/, SLO.judge(record(valid: false, invalid_reason: "rate 90 < 99% of 100")).reason)
    assert_match(/1 health check\(s\) failed/, SLO.judge(record(health: { "failures" => 1, "max_ms" => 2500 })).reason)
    assert_match(/no response/, SLO.judge(record(requests: 0)).reason)
  end

  def test_marginal_near_the_objective
    assert SLO.judge(record(p99: 450)).marginal
    refute SLO.judge(record(p99: 100)).marginal
  end
end

require "rackbench/search/capacity"
require "rackbench/plan/setup"

# A capacity level's verdict and the reason stored with it agree.
class CapacityDecisionTest < Minitest::Test
  Capacity = Rackbench::Search::Capacity
  SLO = Rackbench::Stats::Slo.new(p99_ms: 500, error_rate: 0.001)

  # Answers each measure with the next scripted record.
  FakeSession = Struct.new(:records, :measured, :connections) do
    def measure(trial, context:)
      (self.measured ||= []) << trial.repetition
      (self.connections ||= []) << context.config[:connections]
      records.shift.merge("key" => "k#{trial.repetition}")
    end
  end
  FakeStore = Struct.new(:rows) { def append_capacity(row) = rows << row }

  def record(p99)
    { "latency_ms" => { "p99" => p99 }, "requests" => 1000, "error_total" => 0 }
  end

  def level(p99s, records: nil, rate: nil)
    store = FakeStore.new([])
    ctx = Rackbench::Runner::Session::Context.new(store: store, config: {})
    session = FakeSession.new(records || p99s.map { |p| record(p) })
    trial = Rackbench::Plan::Trial.new(setup: Rackbench::Setup.parse("puma x1:1"), endpoint: "/", concurrency: rate ? nil : 8,
                                       rate: rate, repetition: 1)
    pass, detail = Capacity.new(context: ctx, slo: SLO).send(:level, session, rate ? "open" : "closed", trial, ctx)
    @session = session
    [pass, detail, session.measured, store.rows.last]
  end

  # The blog's level at 293.7 req/s (issue 34): wrk's sends late, p99 well within.
  def client_bound(connections)
    { "latency_ms" => { "p99" => 143.0 }, "requests" => 540, "error_total" => 0, "valid" => false, "behind" => "client",
      "target_rate" => 293.7, "connections" => connections,
      "invalid_reason" => "the load generator fell behind its schedule: sends went out 4.10 ms late on average" }
  end

  def test_a_level_the_client_could_not_hold_is_measured_with_fewer_connections_then_left_undecided
    pass, detail, measured, row = level(nil, records: [client_bound(30), client_bound(15)], rate: 293.7)
    assert_equal :client, pass, "not a failure of the server"
    assert_equal [1, 2], measured
    assert_equal [nil, 15], @session.connections, "again with half the connections"
    assert_equal [false, true], [row["pass"], row["client"]]
    assert_match(/\Anot the server's: the load generator fell behind/, detail["reason"])

    pass, _, measured, = level(nil, records: [client_bound(30), record(143.0)], rate: 293.7)
    assert_equal true, pass, "held with fewer connections: the server's verdict"
    assert_equal [1, 2], measured
  end

  def test_a_split_is_measured_a_third_time_and_the_reason_agrees
    # 550 ms (marginal, fails), then 300 ms (clear pass): 1-1, so a third.
    pass, detail, measured, row = level([550, 300, 560])
    assert_equal [1, 2, 3], measured
    refute pass
    assert_equal "2 of 3 measurements failed: p99 560 ms over 500 ms", detail["reason"]
    assert_equal [false, detail["reason"]], [row["pass"], row["reason"]]

    pass, detail, = level([550, 300, 420])
    assert pass
    assert_equal "2 of 3 measurements passed: p99 420 ms within 500 ms", detail["reason"]
  end

  def test_one_clear_verdict_or_two_that_agree_decide
    pass, detail, measured, = level([300])
    assert pass
    assert_equal [1], measured
    assert_equal "p99 300 ms within 500 ms", detail["reason"]

    pass, detail, measured, = level([450, 480])
    assert pass
    assert_equal [1, 2], measured
    assert_equal "2 of 2 measurements passed: p99 480 ms within 500 ms", detail["reason"]
  end

  def test_every_decision_states_a_reason_of_its_own_side
    v = Rackbench::Stats::Slo::Verdict
    [[true, false], [false, true], [true, false, false], [false, true, true]].each do |passes|
      verdicts = passes.map { |p| v.new(pass: p, reason: p ? "within" : "over", marginal: true) }
      pass, reason = Capacity.decision(verdicts)
      assert_match(pass ? /within\z/ : /over\z/, reason, passes.inspect)
    end
    refute Capacity.decided?([v.new(pass: true, marginal: false), v.new(pass: false, marginal: false)]), "1-1 is undecided"
  end
end

# A level the load generator could not hold is not the server's failure.
class SloClientTest < Minitest::Test
  SLO = Rackbench::Stats::Slo.new(p99_ms: 300)

  # The Rails blog's tune level at 146.9 req/s (issue 34): p99 143 ms, invalid
  # because wrk's sends went out late on a machine crowded by other processes.
  def blog_level(behind)
    { "latency_ms" => { "p99" => 143.0 }, "requests" => 270, "error_total" => 0, "valid" => false, "behind" => behind,
      "invalid_reason" => "the load generator fell behind its schedule: sends went out 4.10 ms late on average" }
  end

  def test_a_client_bound_trial_is_not_the_servers_failure
    v = SLO.judge(blog_level("client"))
    refute v.pass, "no evidence is no pass"
    assert v.client
    assert_match(/\Anot the server's: the load generator fell behind/, v.reason)
  end

  def test_a_trial_both_sides_fell_behind_in_is_the_servers_failure
    v = SLO.judge(blog_level("both"))
    refute v.pass
    refute v.client
    assert_match(/\Ainvalid trial: /, v.reason)
  end
end
