# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/suites/findings"
require "rackbench/store/run_dir"

# Findings computed from fake stored trials, one case per suite.
class SuiteFindingsTest < Minitest::Test
  def trial(setup, endpoint, concurrency, rps, rep: 1, p50: 10.0, p99: 20.0, mean: 12.0, errors: {}, pss: nil)
    { "setup" => setup, "server" => setup.split.first, "endpoint" => endpoint, "concurrency" => concurrency,
      "repetition" => rep, "rps" => rps, "latency_ms" => { "p50" => p50, "p99" => p99, "mean" => mean },
      "errors" => { "connect" => 0, "read" => 0, "write" => 0, "timeout" => 0, "status" => 0 }.merge(errors),
      "error_total" => errors.values.sum, "error_artifacts" => { "read_close_delimited" => 0 },
      "memory" => pss && { "pss_total_mb" => pss } }
  end

  def findings(suite, trials)
    Rackbench::Suites::Findings.lines_for(suite, trials)
  end

  # rps per setup for fibonacci and pause at c=1 and c=50, one run or several.
  def pavese_trials(fib:, pause:)
    fib.flat_map do |setup, values|
      values.each_with_index.flat_map do |v, i|
        [trial(setup, "/fibonacci/30", 1, 5.0, rep: i + 1), trial(setup, "/fibonacci/30", 50, v, rep: i + 1),
         trial(setup, "/pause/2", 1, 0.5, rep: i + 1), trial(setup, "/pause/2", 50, pause.fetch(setup)[i], rep: i + 1)]
      end
    end
  end

  def test_pavese_single_run_states_the_posts_conclusions_with_numbers
    lines = findings("pavese", pavese_trials(fib: { "unicorn x2" => [31.2], "puma x2:5" => [30.4], "puma x2:10" => [29.0] },
                                             pause: { "unicorn x2" => [9.8], "puma x2:5" => [200.0], "puma x2:10" => [402.0] }))
    assert_includes lines, "On fibonacci Unicorn is level with Puma: unicorn x2 31.2 vs puma x2:5 (best Puma) 30.4 " \
                           "req/s at c=50 (-3% for Puma; single run: nothing decided)."
    assert_includes lines, "Puma far ahead on pause: puma x2:10 (best Puma) 402 req/s vs unicorn x2 9.8 req/s at c=50 " \
                           "(41x; single run: nothing decided)."
    assert_match(/Agrees with the post on 2 of 2 endpoints/, lines.last)
  end

  # Rounds: each round's ratio pairs the two setups measured in it, so a
  # steady 3% gap is decided equivalent within the 5% margin, and 20x ahead
  # (two comparisons: each interval at 1 - 0.05/2).
  def test_pavese_with_rounds_decides_on_the_paired_rounds
    lines = findings("pavese", pavese_trials(fib: { "unicorn x2" => [31.0, 32.0, 30.5, 31.2, 30.8], "puma x2:5" => [30.0, 31.5, 29.8, 30.3, 29.9] },
                                             pause: { "unicorn x2" => [9.8, 9.9, 9.7, 9.8, 9.8], "puma x2:5" => [200.0, 199.0, 201.0, 200.0, 200.0] }))
    fib = lines.find { |l| l.include?("fibonacci") }
    assert_match(/\AOn fibonacci Unicorn is level with Puma: unicorn x2 31\.0 vs puma x2:5 30\.0 req\/s at c=50 \(-3% for Puma; equivalent within \+-5%: 95% CI -\d\.\d% to -\d\.\d%, paired over 5 rounds\)\.\z/, fib)
    assert_match(/\APuma far ahead on pause: puma x2:5 200 req\/s vs unicorn x2 9\.8 req\/s at c=50 \(20x; decided: 95% CI \+\d+% to \+\d+%, paired over 5 rounds\)\.\z/,
                 lines.find { |l| l.include?("pause") })
    refute(lines.any? { |l| l.match?(/significan|within noise|Welch/) })
  end

  # Without rounds to pair (the repetitions were numbered apart), unpaired.
  def test_rounds_that_do_not_match_are_decided_unpaired
    trials = pavese_trials(fib: { "unicorn x2" => [31.0, 32.0, 30.5], "puma x2:5" => [30.0, 31.5, 29.8] },
                           pause: { "unicorn x2" => [9.8, 9.9, 9.7], "puma x2:5" => [200.0, 199.0, 201.0] })
    trials.each { |t| t["repetition"] += 10 if t["setup"] == "puma x2:5" }
    pause = findings("pavese", trials).find { |l| l.include?("pause") }
    assert_match(/\(20x; decided: 95% CI \+\d+% to \+\d+%, unpaired over 3 and 3 rounds\)\.\z/, pause)
  end

  # Two rounds that disagree: undecided, with about how many more rounds.
  def test_pavese_calls_a_large_difference_the_rounds_cannot_decide_unclear
    lines = findings("pavese", pavese_trials(fib: { "unicorn x2" => [110.0, 36.0], "puma x2:5" => [62.0, 120.0] },
                                             pause: { "unicorn x2" => [8.4, 9.0], "puma x2:5" => [36.0, 69.0] }))
    assert_match(/\AOn fibonacci Unicorn and Puma are not decided apart: unicorn x2 73\.0 vs puma x2:5 91\.0 req\/s /, lines[0])
    assert_match(/\(\+25% for Puma; undecided: 95% CI -\d+% to \+\d+%, paired over 2 rounds, about \d+ more rounds\)\.\z/, lines[0])
    assert_match(/\AOn pause Unicorn and Puma are not decided apart: .*\(6\.0x for Puma; undecided: .* The post found Puma ahead here\.\z/,
                 lines[1])
    assert_match(/Agrees with the post on 1 of 2 endpoints/, lines.last)
  end

  # A pair of cells asked both ways round is one decision of the family
  # holds, read from either side.
  def test_a_pair_asked_both_ways_round_is_one_decision
    view = Rackbench::Suites::Findings::View.new(pavese_trials(fib: { "unicorn x2" => [31.0, 32.0, 30.5], "puma x2:5" => [30.0, 31.5, 29.8] },
                                                               pause: { "unicorn x2" => [9.8, 9.9, 9.7], "puma x2:5" => [200.0, 199.0, 201.0] }))
    a = view.compare("/pause/2", 50, "puma x2:5", "unicorn x2")
    b = view.compare("/pause/2", 50, "unicorn x2", "puma x2:5")
    assert_equal 1, view.decisions.size
    assert_equal %i[a b], [a.verdict, b.verdict]
    assert_in_delta 1 / a.decision.ratio, b.decision.ratio, 1e-9
    assert_in_delta 1 / a.decision.ci_high, b.decision.ci_low, 1e-9
  end

  # The suite's comparisons are one family: two 1.5x leads over 2 rounds,
  # each decided alone (its 95% interval, R's t.test: 1.1286-1.9913), are not
  # decided in a family of two (each interval at 97.5%: 0.8489-2.6474), and the
  # interval printed is the family's.
  def test_the_suites_comparisons_are_held_together_as_one_family
    trials = pavese_trials(fib: { "unicorn x2" => [20.0, 20.0], "puma x2:5" => [29.32, 30.66] },
                           pause: { "unicorn x2" => [10.0, 10.0], "puma x2:5" => [14.66, 15.33] })
    view = Rackbench::Suites::Findings::View.new(trials)
    alone = %w[/fibonacci/30 /pause/2].map { |e| view.compare(e, 50, "puma x2:5", "unicorn x2").decision }
    assert_equal %i[higher higher], alone.map(&:outcome), "alone: each decided"
    assert_in_delta 1.1286, alone.first.ci_low, 0.0005
    lines = findings("pavese", trials)
    assert_match(/\AOn fibonacci Unicorn and Puma are not decided apart: .*95% CI -15% to \+165%, paired over 2 rounds, about \d+ more rounds?\)\./,
                 lines[0])
    assert_match(/\AOn pause Unicorn and Puma are not decided apart: .*paired over 2 rounds/, lines[1])
  end

  def test_pavese_says_where_the_run_differs_from_the_post
    lines = findings("pavese", pavese_trials(fib: { "unicorn x2" => [20.0], "puma x2:5" => [30.0] },
                                             pause: { "unicorn x2" => [10.0], "puma x2:5" => [10.2] }))
    assert_match(/\APuma ahead on fibonacci: .*\(\+50%; .*\)\. The post found Unicorn level or slightly ahead here\.\z/, lines[0])
    assert_match(/\AOn pause Unicorn is level with Puma: .* The post found Puma ahead here\.\z/, lines[1])
    assert_match(/Agrees with the post on 0 of 2 endpoints/, lines.last)
  end

  def test_pavese_compares_the_same_threads_in_fewer_and_more_processes
    trials = %w[unicorn\ x2 puma\ x2:10 puma\ x4:5].zip([9.8, 400.0, 300.0]).map { |s, v| trial(s, "/pause/2", 50, v) }
    assert(findings("pavese", trials).any? { |l| l.match?(/fewer vs more Puma processes.*pause puma x2:10 400 vs puma x4:5 300 \(\+33% for puma x2:10/) })
  end

  def test_arena_names_each_endpoints_leader_and_the_failures
    trials = { "thin" => 900.0, "unicorn x2" => 800.0, "puma x2:16" => 700.0 }.map { |s, v| trial(s, "/server", 100, v) } +
             [trial("thin", "/pause/1", 100, 1.0, errors: { "timeout" => 66 }), trial("unicorn x2", "/pause/1", 100, 2.0)]
    lines = findings("arena", trials)
    assert_includes lines, "/server at c=100: thin led with 900 req/s, then unicorn x2 800, puma x2:16 700 " \
                           "(thin over unicorn x2: +12%; single run: nothing decided)."
    assert_includes lines, "/pause/1 at c=100: unicorn x2 led with 2.0 req/s, then thin 1.0 " \
                           "(unicorn x2 over thin: 2.0x; single run: nothing decided)."
    assert_includes lines, "Failed requests, as the post's \"failed\" runs: thin 66 (66 timeout)."
  end

  def test_finc_reports_threads_footprint_and_load_sustained
    e = "/pause-and-render/0.0015"
    health = ->(failures) { { "checks" => 10, "failures" => failures, "max_ms" => 50.0 } }
    trials = [["unicorn x3", 300.0, 250.0], ["puma x2:2", 280.0, 180.0], ["puma x2:4", 330.0, 190.0],
              ["puma x2:6", 332.0, 200.0]].flat_map do |setup, rps, pss|
      [trial(setup, e, 2, rps / 2, pss: pss), trial(setup, e, 32, rps, pss: pss),
       trial(setup, e, 128, rps, pss: pss, errors: setup == "puma x2:2" ? { "timeout" => 3 } : {})]
    end
    trials.each { |t| t["health"] = health.call(t["setup"] == "unicorn x3" && t["concurrency"] == 128 ? 2 : 0) }
    lines = findings("finc", trials)
    assert_match(/\APuma threads vs req\/s at c=128: 2 -> 280, 4 -> 330, 6 -> 332; no gain beyond 4 threads \(single run/, lines[0])
    assert_match(/unicorn x3 300 req\/s\.\z/, lines[0])
    assert_equal "Memory footprint (sum of PSS) at c=128: unicorn x3 250 MB, puma x2:2 180 MB, puma x2:4 190 MB, " \
                 "puma x2:6 200 MB (the post: Puma 4W4T 15% below Unicorn 6W).", lines[1]
    assert_equal "Highest level sustained in this sweep (no failed request or health check): unicorn x3 c=32, " \
                 "puma x2:2 c=32, puma x2:4 c=128, puma x2:6 c=128; up to c=128 was tried (the post: Puma 4W4T " \
                 "twice Unicorn 6W; rackbench capacity searches for the limit).", lines[2]
    trials.each { |t| t.delete("health") }
    assert_match(/\(no failed request; no health checks were recorded\): unicorn x3 c=128, puma x2:2 c=32/,
                 findings("finc", trials)[2])
  end

  def test_jruby_reports_peaks_latency_and_the_runtime_used
    trials = [["unicorn x2", [1, 100.0, 5.0], [16, 350.0, 40.0], [128, 340.0, 400.0]],
              ["puma x1:16", [1, 110.0, 4.0], [16, 420.0, 30.0], [128, 410.0, 50.0]]].flat_map do |setup, *cells|
      cells.map { |c, rps, mean| trial(setup, "/template-render", c, rps, mean: mean) }
    end
    lines = findings("jruby", trials)
    assert_equal "Peak req/s on /template-render: puma x1:16 420 at c=16 vs unicorn x2 350 at c=16 (puma x1:16 ahead " \
                 "by +20%; single run: nothing decided; the post: Puma ~420 vs Unicorn ~350 at 16 users).", lines[0]
    assert_match(/\AMean latency at c=128: unicorn x2 400 ms vs puma x1:16 50 ms/, lines[1])
    assert_match(/\APuma ran on MRI/, lines[2])
    jruby = trials.map { |t| t.merge("setup" => t["setup"].sub("puma x1:16", "puma x1:16 on jruby")) }
    assert_match(/\APuma ran on JRuby, as in the post \(JRuby 1.7.3.*Puma ~420 vs Unicorn ~350/,
                 findings("jruby", jruby)[2])
  end

  def test_nginx_compares_each_server_behind_nginx_with_it_alone
    trials = { "thin" => 9000.0, "thin behind nginx" => 5400.0, "unicorn x2" => 3000.0,
               "unicorn x2 behind nginx" => 2950.0 }.map { |s, v| trial(s, "/hello", 100, v) } +
             [trial("thin", "/pause/0.1", 100, 0.0), trial("thin behind nginx", "/pause/0.1", 100, 0.0)]
    assert_equal ["thin behind nginx vs thin: /hello 5400 vs 9000 req/s at c=100 (-40%; single run: nothing decided); " \
                  "/pause/0.1: neither answered at c=100.",
                  "unicorn x2 behind nginx vs unicorn x2: /hello 2950 vs 3000 req/s at c=100 (level; single run: " \
                  "nothing decided)."], findings("nginx", trials)
  end

  def test_field_2026_names_each_leader_and_thruster_against_puma_alone
    trials = { "puma x2:5" => 9000.0, "itsi x2:5" => 12_000.0, "puma x2:5 behind thruster" => 4000.0 }
             .map { |s, v| trial(s, "/hello", 16, v) }
    lines = findings("field-2026", trials)
    assert_equal 2, lines.size, lines.inspect
    assert_match(%r{\A/hello at c=16: .*itsi x2:5.* 12000 req/s}, lines[0])
    assert_equal "puma x2:5 behind thruster vs puma x2:5: /hello 4000 vs 9000 req/s at c=16 (2.2x less; single run: nothing decided).",
                 lines[1]
  end

  def test_no_trials_and_a_run_that_was_not_a_suite
    assert_equal ["no trials were stored: nothing to conclude (see the failures above)"], findings("arena", [])
    dir = tmpdir
    store = Rackbench::Store::RunDir.new(dir)
    store.write_meta("suite" => nil)
    io = StringIO.new
    Rackbench::Suites::Findings.report(store, io: io)
    assert_empty io.string
    store.write_meta("suite" => "nginx")
    store.append_trial(trial("thin", "/hello", 10, 100.0))
    Rackbench::Suites::Findings.report(store, io: io)
    assert_match(/\AFindings of suite nginx \(seed 004: .*\), from the stored trials \(req\/s: successful responses, median of the rounds; a difference decided over the rounds, margin \+-5%, one family at 5% over every comparison made\):\n  - No server ran both/, io.string.lstrip)
  end
end
