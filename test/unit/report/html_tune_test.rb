# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/report/html"
require "rackbench/store/run_dir"
require_relative "run_fixture"

# A tune run's report.html leads with tune's answer: the recommended setup
# and why, the SLO, the rate it holds in its unit (r= req/s offered), its
# footprint, the runner-up and their decision, the config file's path and
# the Pareto table; not the ordinary setups x levels sections, which over a
# search's levels (concurrencies and rates mixed) are mostly blank.
class ReportHtmlTuneTest < Minitest::Test
  F = Rackbench::RunFixture
  SLO = { "p99_ms" => 500.0, "error_rate" => 0.001, "health_checks" => false }.freeze
  DECISION = "unicorn x2 against puma x2:1 (3 paired rounds at 84.0 req/s): req/s equivalent within +-5% " \
             "(95% CI -1% to +1%); PSS larger by 15% (95% CI 11-20%): puma x2:1 wins"

  def confirmation(p99)
    { "n" => 3, "passes" => 3, "holds" => true, "failures" => [], "p99_ms" => { "median" => p99 }, "rate" => 84.0, "window_s" => 1.5 }
  end

  def recommendation
    { "setup" => "puma x2:1", "server" => "puma", "workers" => 2, "threads" => 1, "endpoint" => "/pause/0.02", "slo" => SLO,
      "evidence" => "confirmed", "evidence_note" => "open-loop knee search, then paired rounds of the finalists at one rate",
      "knee_rps" => 98.4, "probe_rps" => 93.4, "footprint_mb" => 31.7, "processes" => 3, "confirmation" => confirmation(42.0),
      "reason" => "puma x2:1 — 84.0 req/s within p99 500 ms (3/3 paired rounds), 31.7 MiB PSS; #{DECISION}",
      "runner_up" => { "setup" => "unicorn x2", "knee_rps" => nil, "probe_rps" => 94.4, "footprint_mb" => 36.8, "processes" => 3,
                       "confirmation" => confirmation(22.0) },
      "decision" => { "a" => "puma x2:1", "b" => "unicorn x2", "basis" => "pss", "settled" => true, "rounds" => 3, "text" => DECISION },
      "pareto" => [{ "setup" => "unicorn x2", "rps" => 94.4, "knee_rps" => nil, "footprint_mb" => 36.8, "status" => "runner-up", "pareto" => true },
                   { "setup" => "puma x2:1", "rps" => 93.4, "knee_rps" => 98.4, "footprint_mb" => 31.7, "status" => "recommended", "pareto" => true },
                   { "setup" => "puma x1:1", "rps" => 50.0, "knee_rps" => nil, "footprint_mb" => 40.0, "status" => "dropped in round 1", "pareto" => false }],
      "config_files" => ["config/puma.rb"], "start_command" => "bundle exec puma -C config/puma.rb", "time_budget_s" => 60.0,
      "elapsed_s" => 52.8, "method" => "successive halving", "noise_band" => 0.06, "seed" => 7 }
  end

  # Open-loop trials at the rate of round 3 (puma's ran under foreign load), and closed-loop probes.
  def trials
    at_rate = %w[puma\ x2:1 unicorn\ x2].flat_map do |setup|
      (1..3).map do |r|
        F.trial(setup: setup, endpoint: "/pause/0.02", concurrency: 8, repetition: r, rps: 84.0, mean: 25.0, p99: 42.0)
         .merge("key" => "#{setup}|/pause/0.02|r=84.0|#{r}", "loop" => "open", "rate" => 84.0, "duration_s" => 1.5,
                "machine" => { "foreign_pct" => setup.start_with?("puma") ? 60.0 : 2.0 })
      end
    end
    probes = [F.trial(setup: "puma x1:1", endpoint: "/pause/0.02", concurrency: 2, repetition: 1, rps: 50.0, mean: 40.0)]
    at_rate + probes
  end

  def write(rec)
    dir = F.write(File.join(tmpdir, "tune"), trials: trials, meta: F::META.merge("command" => "tune", "tune" => { "memory_budget_mb" => 300.0 }))
    File.write(File.join(dir, "recommendation.json"), JSON.generate(rec)) if rec
    File.write(File.join(dir, "tune.jsonl"), JSON.generate("type" => "round", "round" => 1, "method" => "closed-loop probe",
                                                           "decisions" => [{ "setup" => "puma x1:1", "keep" => false, "reason" => "slower" }]) + "\n")
    dir
  end

  def render(dir)
    Rackbench::Report::Html.new(Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir))).render
  end

  def test_the_page_leads_with_the_recommendation_then_the_pareto_table
    dir = write(recommendation)
    html = render(dir)
    assert_equal %w[answer pareto rounds warnings method environment setups], html.scan(/<section id="([^"]+)"/).flatten
    refute_includes html, "At c ="
    refute_includes html, 'class="numbers"'
    assert_equal [], JSON.parse(html[%r{<script type="application/json" id="rackbench-data">(.*?)</script>}m, 1])["charts"]
    assert_match(%r{<p class="facts">tune · /pause/0.02 · SLO p99 ≤ 500 ms · 3 setups probed · 7 trials</p>}, html)

    answer = html[%r{<section id="answer">.*?</section>}m]
    assert_match(%r{<p class="headline"><b>puma x2:1</b> <span class="mark foreign" [^>]*>~</span> — 84.0 req/s within p99 500 ms}, answer)
    assert_includes answer, "<dt>SLO</dt><dd>p99 ≤ 500 ms, errors ≤ 0.1% of responses</dd>"
    assert_includes answer, "<dt>Holds</dt><dd>r=84.0 req/s offered, over 3/3 paired rounds of 1.5 s (p99 median 42 ms)</dd>"
    assert_includes answer, "<dt>Footprint</dt><dd>31.7 MiB PSS, 3 processes</dd>"
    assert_match(%r{<dt>Runner-up</dt><dd><b>unicorn x2</b>: r=84.0 req/s offered, .*<br>unicorn x2 against puma x2:1 \(3 paired rounds}, answer)
    refute_match(%r{<b>unicorn x2</b> <span class="mark}, answer, "the runner-up's trials were quiet")
    assert_includes answer, "<dt>Config</dt><dd><code>#{File.join(dir, 'config/puma.rb')}</code> (start with: <code>bundle exec puma -C config/puma.rb</code>)</dd>"
    assert_match(/~ = measured under foreign load: a lead marked ~/, answer)
    assert_match(%r{<header>.*machine not quiet: 3 of 7 trials under foreign load}m, html)

    pareto = html[%r{<section id="pareto">.*?</section>}m]
    assert_match(%r{<tr class="recommended"><td>★</td><th scope="row">puma x2:1</th><td>93.4</td><td>r=98.4</td><td>31.7</td><td class="status">recommended</td></tr>}, pareto)
    assert_match(%r{<tr><td></td><th scope="row">puma x1:1</th><td>50.0</td><td>–</td><td>40.0</td><td class="status">dropped in round 1</td></tr>}, pareto)
    assert_match(%r{<section id="rounds">.*dropped puma x1:1: slower}m, html)
    assert_includes html, "<dt>Time</dt><dd>52.8 s of a 60 s budget</dd>"
  end

  def test_no_recommendation_says_why
    rec = { "setup" => nil, "endpoint" => "/pause/0.02", "slo" => SLO, "reason" => "no setup met p99 <= 500 ms on /pause/0.02",
            "best_throughput" => { "setup" => "puma x2:1", "probe_rps" => 93.4 }, "pareto" => [] }
    answer = render(write(rec))[%r{<section id="answer">.*?</section>}m]
    assert_includes answer, "<p class=\"headline\">No recommendation: no setup met p99 &lt;= 500 ms on /pause/0.02.</p>"
    assert_includes answer, "<b>puma x2:1</b> (93.4 req/s, closed-loop probe)"
  end

  def test_a_tune_that_did_not_finish_says_so
    answer = render(write(nil))[%r{<section id="answer">.*?</section>}m]
    assert_match(/No recommendation.json in this run directory: tune did not finish/, answer)
  end
end
