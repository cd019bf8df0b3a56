# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/stats/slo"
require "rackbench/search/tune"
require "rackbench/search/tune/lab"
require "rackbench/store/tune_journal"
require "rackbench/store/run_dir"
require "rackbench/report/tune_text"

# Search::Tune's decisions on fake measurements: a lab that answers from a
# model of each setup (saturated throughput, knee, p99, memory) with a little
# seeded noise, on a fake clock that each measurement advances.
class TuneSearchTest < Minitest::Test
  Tune = Rackbench::Search::Tune
  Outcome = Tune::Lab::Outcome

  # Answers like Tune::Lab, from model.call(setup) -> {cap:, knee:, p99:, mb:}.
  class FakeLab
    attr_reader :calls

    def initialize(model, clock, deadline: nil, fail: [], seed: 1)
      @model = model
      @clock = clock
      @fail = fail
      @rng = Random.new(seed)
      @calls = []
      @deadline = deadline
    end

    attr_writer :deadline

    def boot_cost = 2.0
    def probe_cost(repeat = 1) = boot_cost + repeat * 1.4
    def knee_cost(levels) = boot_cost + levels * 2.4
    def confirm_cost(repeat, duration) = boot_cost + repeat * ((duration + 0.25).ceil + 0.4)
    def window(run) = run - 0.3
    def min_run(rate) = (100 / rate + 0.5).ceil.clamp(2, 8)
    def expect(_count); end

    def probe(setup, repeat: 1)
      session(setup, :probe) do |records|
        repeat.times { records << measure(1.4) { record(setup, m(setup)[:cap] * noise, 80.0) } }
      end
    end

    def knee(setup, guess:, expected_latency:, max_levels:)
      knee = m(setup)[:knee]
      o = session(setup, :knee) do |records|
        max_levels.times { |i| records << measure(2.4) { record(setup, (knee || 1.0) * (0.8 + 0.1 * i), 100.0, open: true) } }
      end
      o.knee = { "pass" => knee.round(1), "fail" => (knee * 1.08).round(1), "levels" => [{ "level" => knee.round(1), "pass" => true }],
                 "complete" => !o.stopped } unless o.failure || knee.nil?
      unless knee || o.failure # nothing passes, down to 5% of the throughput
        low = (m(setup)[:cap] * 0.05).round(1)
        o.knee = { "pass" => nil, "fail" => low, "fail_reason" => "p99 1.00 s over 300 ms",
                   "levels" => [{ "level" => low, "pass" => false, "reason" => "p99 1.00 s over 300 ms", "p99_ms" => 1000.0 }] }
      end
      o.knee = nil if o.stopped && o.records.size < 2
      o
    end

    def confirm(setup, rate:, repeat:, duration:, expected_latency:)
      model = m(setup)
      session(setup, :confirm) do |records|
        repeat.times do
          records << measure((duration + 0.25).ceil + 0.4) do
            over = rate > (model[:held] || model[:knee]) * 1.05
            record(setup, [rate, model[:cap]].min * noise, over ? 900.0 : model[:p99] * noise, open: true, valid: rate <= model[:cap])
          end
        end
      end
    end

    private

    def m(setup) = @model.call(setup)

    def session(setup, kind)
      @calls << [kind, setup.label]
      return Outcome.new(records: [], stopped: true) unless @deadline.allows?(boot_cost + 1)

      advance(boot_cost)
      return Outcome.new(records: [], failure: "#{setup.label}: failed to boot (exit 1)") if @fail.include?(setup.label)

      records = []
      yield records
      Outcome.new(records: records, stopped: false)
    rescue StopIteration
      Outcome.new(records: records, stopped: true)
    end

    def measure(cost)
      raise StopIteration unless @deadline.allows?(cost)

      advance(cost)
      yield
    end

    def advance(seconds)
      @clock[0] += seconds
    end

    def noise
      1 + (@rng.rand - 0.5) * 0.02
    end

    def record(setup, rps, p99, open: false, valid: true)
      mb = m(setup)[:mb]
      { "key" => "#{setup.label}|#{@calls.size}", "setup" => setup.label, "rps" => rps.round(2), "goodput_rps" => rps.round(2),
        "requests" => (rps * 2).round, "error_total" => 0, "loop" => open ? "open" : "closed", "valid" => valid,
        "invalid_reason" => valid ? nil : "achieved #{rps.round(1)} req/s",
        "latency_ms" => { "p50" => p99 / 2, "p99" => p99.round(1) }, "machine" => { "cpu_pct" => m(setup)[:cpu] },
        "memory" => { "pss_total_mb" => mb, "pss_per_worker_mb" => (mb - 20.0) / setup.workers, "pss_master_mb" => 20.0 } }
        .merge(split(setup))
    end

    # The probe's split, where the model gives the requests' CPU share f
    # (wall 10 ms a request, CPU f of it).
    def split(setup)
      f = m(setup)[:cpu_share] or return {}
      { "split" => { "requests" => 100, "wall_ms" => 10.0, "cpu_ms" => 10.0 * f, "waiting_ms" => 10.0 * (1 - f) } }
    end
  end

  class FakeJournal
    attr_reader :rows, :recommendation, :files

    def initialize
      @rows = []
    end

    def path = "/tmp/fake-run"
    def log(row) = @rows << JSON.parse(JSON.generate(row))
    def recommend(rec) = @recommendation = rec
    def write_files(files) = @files = files
  end

  # An IO-bound endpoint of 50 ms: throughput = workers x threads x 20 req/s,
  # until the 2 cores are busy at CPU_CAP req/s (each process also costs a
  # little CPU of its own).
  CPU_CAP = 1600.0
  IO_BOUND = lambda do |setup|
    cap = [setup.workers * setup.threads * 20.0, CPU_CAP - 40 * setup.workers].min
    { cap: cap, knee: cap * 0.9, p99: 80.0, mb: 20.0 + 12.0 * setup.workers + 0.5 * setup.threads * setup.workers,
      cpu: (200.0 * (cap + 40 * setup.workers) / CPU_CAP).round(1) }
  end

  def tune(model: IO_BOUND, seconds: 600, servers: %w[puma unicorn], budget: 2048, fail: [], journal: FakeJournal.new, **opts)
    clock = [0.0]
    deadline = Tune::Deadline.new(seconds, clock: -> { clock[0] })
    lab = FakeLab.new(model, clock, fail: fail)
    lab.deadline = deadline
    lines = []
    t = Tune.new(lab: lab, journal: journal, deadline: deadline, servers: servers, budget_mb: budget,
                 slo: Rackbench::Stats::Slo.new(p99_ms: 300), endpoint: "/pause/0.05", cores: 2,
                 say: ->(line) { lines << line }, **opts)
    rec = t.call
    [rec, journal, lab, lines, clock[0]]
  end

  def test_io_bound_the_most_threads_and_workers_win_with_far_fewer_knee_searches
    rec, journal, lab, lines, elapsed = tune(edge_steps: 0)
    assert_equal "puma x4:16", rec["setup"]
    assert_equal "confirmed", rec["evidence"]
    assert_equal 28, lab.calls.count { |k, _| k == :probe }, "2 footprint probes (also candidates), then one per other setup"
    assert_operator lab.calls.count { |k, _| k == :knee }, :<=, 3, "the bound spares most knee searches"
    assert_equal [1, 2, 3], journal.rows.select { |r| r["type"] == "round" }.map { |r| r["round"] }
    assert_nil rec.dig("edges", "bracketed"), "no step past the edges was allowed"
    round1 = journal.rows.find { |r| r["type"] == "round" && r["round"] == 1 }
    assert_equal 28, round1["decisions"].size
    assert_operator round1["decisions"].count { |d| d["keep"] }, :<=, 16
    assert(round1["decisions"].reject { |d| d["keep"] }.all? { |d| d["reason"].match?(/below the cut-off .* noise band/) })
    assert_match(/\Apuma x4:16 — \d+ req\/s within p99 300 ms \(3\/3 paired rounds of 2.7 s at \d+ req\/s held it/, rec["reason"])
    assert rec["runner_up"]
    assert_includes journal.files.keys, "config/puma.rb"
    assert_operator elapsed, :<=, 600
    assert(lines.any? { |l| l.match?(/\Around 2\/3: \d+ setups left, leader puma x4:16 \(~\d+ req\/s\)\z/) }, lines.join("\n"))
    assert(lines.any? { |l| l.start_with?("memory: puma: ") && l.include?("capped at 4 (2 x 2 cores)") })
    pareto = rec["pareto"]
    assert_equal 28, pareto.size
    assert pareto.find { |r| r["setup"] == "puma x4:16" }["pareto"]
    assert pareto.find { |r| r["setup"] == "unicorn x1" }["pareto"], "the smallest footprint is on the front"
    refute pareto.find { |r| r["setup"] == "puma x4:1" }["pareto"], "x2:3 is faster and smaller"
  end

  # The winner x4:16 has the most threads searched, and throughput still
  # rises with threads: x4:24 is probed, knee-searched and confirmed above
  # it; x4:32 gains nothing as the cores are busy (CPU_CAP): bracketed by CPU.
  def test_a_winner_on_the_thread_edge_is_searched_past_it_until_the_cpu_binds
    rec, journal, lab, lines, elapsed = tune
    assert_equal "puma x4:24", rec["setup"]
    assert_equal "confirmed", rec["evidence"]
    edges = rec["edges"]
    assert_equal [true, "CPU"], edges.values_at("bracketed", "bound")
    assert_equal ["puma x4:24", "puma x4:32"], edges["steps"].map { |s| s["setup"] }
    assert_equal [%w[probe puma\ x4:24], %w[knee puma\ x4:24], %w[confirm puma\ x4:24], %w[probe puma\ x4:32]],
                 lab.calls.select { |_, l| l.match?(/x4:(24|32)/) }.map { |k, l| [k.to_s, l] }.uniq
    assert_match(/\Aoptimum bracketed \(bound: CPU\): puma x4:32 probed \d+ req\/s vs \d+: no gain beyond the noise band with the machine's CPU 100% busy; tried past the edge: puma x4:24, puma x4:32\z/, edges["note"])
    assert_equal "edges", journal.rows.last["type"]
    assert(lines.any? { |l| l == "edges: #{edges['note']}" })
    assert_operator elapsed, :<=, 600
  end

  def test_without_time_to_look_past_the_edge_the_optimum_is_not_bracketed
    rec, = tune(seconds: 150)
    edges = rec["edges"]
    assert_equal false, edges["bracketed"], edges["note"]
    assert_equal "time budget", edges["bound"]
    assert_match(/\Aoptimum NOT bracketed \(time budget\): puma x4:24 reached a higher knee \(\d+ req\/s\) but no time was left to confirm it; tried past the edge: puma x4:24\z/, edges["note"])
    assert_equal "confirmed", rec["evidence"], "round 3 ran; only the step past the edge could not be confirmed"
  end

  # The knee search past the edge could not keep its schedule: the client,
  # not the server, bound it, and the optimum is not called bracketed.
  class SlippingLab < FakeLab
    def knee(setup, **opts)
      super.tap do |o|
        next unless setup.threads > 16

        o.records.each { |r| r.merge!("valid" => false, "invalid_reason" => "the load generator fell behind its schedule: sends late") }
      end
    end
  end

  def test_a_step_whose_knee_search_the_client_could_not_drive_is_not_bracketed
    clock = [0.0]
    deadline = Tune::Deadline.new(600, clock: -> { clock[0] })
    lab = SlippingLab.new(IO_BOUND, clock)
    lab.deadline = deadline
    rec = Tune.new(lab: lab, journal: FakeJournal.new, deadline: deadline, servers: %w[puma], budget_mb: 2048,
                   slo: Rackbench::Stats::Slo.new(p99_ms: 300), endpoint: "/pause/0.05", cores: 2).call
    assert_equal [false, "load generator"], rec["edges"].values_at("bracketed", "bound")
    assert_match(/the knee search of puma x4:24 was limited by the load generator \(the load generator fell behind its schedule\)/, rec["edges"]["note"])
  end

  # A lab on a crowded machine (issue 34): wrk falls behind its schedule at
  # `bound` req/s, whatever the server; below it, the model's own knee.
  class CrowdedLab < FakeLab
    def initialize(model, clock, bound:)
      super(model, clock)
      @bound = bound
    end

    def knee(setup, guess:, expected_latency:, max_levels:)
      o = super
      passed = Array(o.knee&.dig("levels")).select { |l| l["pass"] && l["level"] < @bound }
      client = { "level" => @bound, "pass" => false, "client" => true, "reason" => "not the server's: the load generator fell behind" }
      o.knee = { "pass" => passed.map { |l| l["level"] }.max, "fail" => nil, "bound" => @bound,
                 "bound_reason" => Rackbench::Search::ClientBound.note(@bound), "levels" => passed + [client], "complete" => true }
      o
    end
  end

  def crowded(bound)
    clock = [0.0]
    deadline = Tune::Deadline.new(600, clock: -> { clock[0] })
    lab = CrowdedLab.new(IO_BOUND, clock, bound: bound)
    lab.deadline = deadline
    Tune.new(lab: lab, journal: FakeJournal.new, deadline: deadline, servers: %w[unicorn], budget_mb: 2048, edge_steps: 0,
             slo: Rackbench::Stats::Slo.new(p99_ms: 300), endpoint: "/posts/1", cores: 2).call
  end

  def test_a_search_the_load_generator_ended_says_the_machine_bounded_it
    rec = crowded(293.7)
    refute_nil rec["setup"], "the knees below the bound are the server's evidence"
    assert_equal 293.7, rec["client_bound"]
    assert_match(/; the knee search of unicorn x\d+(, unicorn x\d+)* stopped where the load generator could not hold 294 req\/s on this machine/, rec["reason"])

    rec = crowded(1.0) # not even the lowest rate: no level says anything about the server
    assert_nil rec["setup"]
    assert_match(%r{\Ano setup met p99 <= 300 ms on /posts/1: no rate tried on \d setup\(s\) could be judged: the load generator could not hold 1.0 req/s on this machine}, rec["reason"])
    refute_match(/raise --slo-p99/, rec["reason"], "a higher objective would not help")
  end

  def test_the_user_max_workers_leaves_the_optimum_unbracketed_and_is_named
    rec, = tune(servers: %w[unicorn], max_workers: 4)
    assert_equal "unicorn x4", rec["setup"]
    assert_equal [false, "--max-workers"], rec["edges"].values_at("bracketed", "bound")
    assert_match(/unicorn x6 is past it: --max-workers 4/, rec["edges"]["note"])
  end

  # CPU-bound on 2 cores: every 2-worker setup saturates alike; with threads
  # the tail grows. x2:3 and x2:5 tie on throughput; x2:5's p99 is higher.
  CPU_BOUND = lambda do |setup|
    cap = [setup.workers, 2].min * 100.0 * (setup.server == "unicorn" ? 0.9 : 1.0)
    p99 = 100.0 * (1 + 0.2 * setup.threads)
    { cap: cap, knee: cap * 0.9, p99: p99, mb: 20.0 + 12.0 * setup.workers }
  end

  def test_tied_throughput_is_decided_by_a_lower_p99_with_intervals
    rec, journal, = tune(model: CPU_BOUND, servers: %w[puma], ladders: { "puma" => [1, 3, 5] }, max_workers: 2)
    assert_equal "puma x2:1", rec["setup"], rec["reason"]
    assert_equal "confirmed", rec["evidence"]
    assert_equal ["puma x2:1", "puma x2:3", "p99", true], rec["decision"].values_at("a", "b", "basis", "settled")
    by = rec["decisions"].select { |d| d["a"] == "puma x2:1" && d["b"] == "puma x2:3" }.to_h { |d| [d["metric"], d] }
    # Three rounds at round 3's first look (its share of the rate, and three
    # pairs in each family): p99's 33% is decided, req/s and PSS alike are not yet.
    assert_equal %w[undecided slower undecided], by.values_at("rps", "latency_ms.p99", "memory.pss_total_mb").map { |d| d["outcome"] }
    assert_equal [3, 3], by["rps"].values_at("family_size", "look")
    p99 = by["latency_ms.p99"]
    assert_operator p99["ci_low"], :>, 1.05, "x2:3's p99 (160 ms) over x2:1's (120 ms), beyond the margin"
    assert_equal [0.05, 3, Rackbench::Stats::Decision::PAIRED], p99.values_at("margin", "rounds", "method")
    assert_match(%r{; runner-up puma x2:3 against puma x2:1 \(3 paired rounds at \d+ req/s\): req/s undecided \(95% CI -\d.* to \+\d.*%, about \d+ more rounds?\); p99 slower by 3\d% \(95% CI \d+-\d+%\); PSS undecided .*: puma x2:1 wins: decided lower p99, req/s not decided apart\z}, rec["reason"])
    refute_match(/significant|within noise/, rec["reason"])
    round3 = journal.rows.find { |r| r["type"] == "round" && r["round"] == 3 }
    assert_equal 3, round3["decisions"].size
    assert_equal 3, round3["pairs"].size
    confirms = journal.rows.select { |r| r["type"] == "confirm" }
    assert_equal [1, 2, 3], confirms.map { |r| r["n"] }
    assert(confirms.all? { |r| r["order"].sort == ["puma x2:1", "puma x2:3", "puma x2:5"] }, "every finalist once per round")
    assert_operator confirms.map { |r| r["order"] }.uniq.size, :>, 1, "a fresh order each round (seed 0)"
  end

  # Tied by construction: 2 processes of 5 threads and 1 of 10 serve the
  # same IO-bound rate alike (throughput and p99), and x1:10 is one process
  # in 26 MiB against three in 36. Round 2 leaves x2:5 unsearched (matched in
  # less memory); round 3 confirms the tie with intervals.
  TIED = lambda do |setup|
    slots = setup.workers * setup.threads
    { cap: slots * 20.0, knee: slots * 18.0, p99: 60.0, mb: setup.workers == 1 ? 26.0 : 20.0 + 8.0 * setup.workers }
  end

  def test_a_tie_goes_to_the_smaller_footprint_and_says_why_with_the_intervals
    rec, = tune(model: TIED, servers: %w[puma], ladders: { "puma" => [5, 10] }, max_workers: 2, edge_steps: 0)
    assert_equal "puma x2:10", rec["setup"], "the most threads in all win outright"
    rec, journal, = tune(model: ->(s) { TIED.call(s).merge(cap: [s.workers * s.threads, 10].min * 20.0, knee: [s.workers * s.threads, 10].min * 18.0) },
                         servers: %w[puma], ladders: { "puma" => [5, 10] }, max_workers: 2, edge_steps: 0)
    assert_equal "puma x1:10", rec["setup"], rec["reason"]
    d = rec["decision"]
    assert_equal ["pss", true], d.values_at("basis", "settled")
    outcomes = rec["decisions"].select { |x| [x["a"], x["b"]].sort == [d["a"], d["b"]].sort }.to_h { |x| [x["metric"], x["outcome"]] }
    assert_equal "equivalent", outcomes["rps"]
    assert_equal "equivalent", outcomes["latency_ms.p99"]
    # The model: puma x1:10 26 MB, puma x2:10 36 MB. A decision reads b
    # against a, so b's PSS is larger exactly when the winner is a.
    bigger = d["a"] == "puma x1:10" ? "larger" : "smaller"
    assert_equal [["puma x1:10", "puma x2:10"], bigger], [[d["a"], d["b"]].sort, outcomes["memory.pss_total_mb"]], d.inspect
    assert_match(/: puma x1:10 wins: equivalent on req\/s and p99, so the smaller footprint\z/, rec["reason"])
    assert_match(/; PSS #{bigger} by 3\d% \(95% CI 3\d-4\d%\): /, rec["reason"])
    round2 = journal.rows.find { |r| r["type"] == "round" && r["round"] == 2 }
    challenger = round2["decisions"].find { |x| x["reason"].start_with?("finalist without a knee search") }
    refute_nil challenger, round2["decisions"].map { |x| "#{x['setup']}: #{x['reason']}" }.join("\n")
  end

  # Undecided: p99 5% apart, exactly the margin: no number of rounds will
  # put the interval on one side, so after one round more than the 3 (when
  # it still looked decidable) tune stops, says so and how many rounds it
  # would take, and the smaller footprint wins by the rule.
  def test_an_undecided_pair_says_so_and_how_many_more_rounds
    model = lambda do |s|
      m = TIED.call(s).merge(cap: [s.workers * s.threads, 10].min * 20.0, knee: [s.workers * s.threads, 10].min * 18.0)
      s.workers == 2 ? m.merge(p99: 63.0) : m
    end
    rec, journal, = tune(model: model, servers: %w[puma], ladders: { "puma" => [5, 10] }, max_workers: 2, edge_steps: 0)
    assert_equal "puma x1:10", rec["setup"]
    d = rec["decision"]
    assert_equal ["pss", false], d.values_at("basis", "settled")
    assert_nil d["rounds_needed"], "no look up to round 10 would decide p99 on the margin"
    assert_equal Tune::ConfirmRound::ROUNDS, rec.dig("confirm", "rounds"), "no round added once none could decide it"
    assert_equal rec.dig("confirm", "rounds"), journal.rows.count { |r| r["type"] == "confirm" }
    p99 = rec["decisions"].find { |x| x["metric"] == "latency_ms.p99" && x["b"] == "puma x2:10" }
    assert_equal "direction_slower", p99["outcome"], "slower for certain, by more than 5% not decidable"
    assert_match(/p99 (undecided|slower, by [\d.]+-[\d.]+%) \(95% CI[^)]*, not decidable by round 10 \(the last look\) at this spread\)/, rec["reason"])
    assert_match(/puma x1:10 wins: req\/s (equivalent|undecided), p99 undecided, so the smaller footprint; not settled/, rec["reason"])
  end

  # CPU-bound with threads costing memory: every setup of 2 or more
  # processes saturates the 2 cores alike, so round 1 keeps ties and the
  # bound rules out none of them; dominance leaves the smallest of the tied.
  CPU_THREADS_COST = lambda do |setup|
    CPU_BOUND.call(setup).merge(p99: 150.0, mb: 20.0 + setup.workers * (12.0 + 0.5 * setup.threads))
  end

  def test_cpu_bound_ties_are_settled_by_dominance_not_knee_searches
    rec, journal, lab = tune(model: CPU_THREADS_COST, servers: %w[puma])
    round2 = journal.rows.find { |r| r["type"] == "round" && r["round"] == 2 }
    dominated = round2["decisions"].select { |d| d["reason"].match?(/not searched: puma x\d:\d+ was as fast in round 1/) }
    assert_operator dominated.size, :>=, 4, round2["decisions"].map { |d| "#{d['setup']}: #{d['reason']}" }.join("\n")
    assert_operator lab.calls.count { |k, _| k == :knee }, :<=, round2["decisions"].size - dominated.size
    assert_match(/\Apuma x2:\d+\z/, rec["setup"], "two workers fill two cores in the least memory")
  end

  # A knee search grows a server's memory (issue 34: "in less memory (199.2 <
  # 187.8 MiB PSS)"): a dominance reason cites the footprints round 2
  # compared, not the medians after the searches that came before it.
  class GrowingLab < FakeLab
    def knee(setup, guess:, expected_latency:, max_levels:)
      super.tap { |o| o.records.each { |r| r["memory"] = r["memory"].merge("pss_total_mb" => r.dig("memory", "pss_total_mb") * 3) } }
    end
  end

  def test_a_dominance_reason_cites_the_footprints_it_compared
    clock = [0.0]
    deadline = Tune::Deadline.new(600, clock: -> { clock[0] })
    lab = GrowingLab.new(CPU_THREADS_COST, clock)
    lab.deadline = deadline
    journal = FakeJournal.new
    Tune.new(lab: lab, journal: journal, deadline: deadline, servers: %w[puma], budget_mb: 2048,
             slo: Rackbench::Stats::Slo.new(p99_ms: 300), endpoint: "/pause/0.05", cores: 2).call
    cited = journal.rows.select { |r| r["type"] == "round" }.flat_map { |r| r["decisions"] }
                   .filter_map { |d| d["reason"][/in less memory \(([\d.]+) < ([\d.]+) MiB PSS\)/] && [$1.to_f, $2.to_f, d["reason"]] }
    refute_empty cited, "round 2 dropped a dominated setup"
    cited.each { |less, more, reason| assert_operator less, :<, more, reason }
  end

  def test_a_short_time_budget_still_ends_with_the_best_evidence_so_far
    rec, journal, lab, _lines, elapsed = tune(seconds: 30)
    assert_operator elapsed, :<=, 30
    assert_equal "time budget", rec["stopped"]
    # 30 s of the fake clock reach a knee search, not round 3's confirmation.
    assert_equal "knee", rec["evidence"]
    assert_match(/out of time/, rec["reason"])
    assert(journal.rows.find { |r| r["round"] == 1 }["decisions"].any? { |d| d["reason"].include?("time budget") })
    assert_equal 0, lab.calls.count { |k, _| k == :confirm }
  end

  def test_a_budget_for_round_one_and_one_knee_recommends_from_the_knee
    rec, = tune(seconds: 110, servers: %w[unicorn], edge_steps: 0)
    assert_equal "unicorn x4", rec["setup"]
    assert_operator rec["elapsed_s"].to_f, :<=, 110
  end

  def test_failed_setups_are_dropped_with_their_reason_and_a_failed_server_is_left_out
    rec, journal, _lab, lines = tune(servers: %w[puma unicorn], fail: ["unicorn x2", "puma x4:16"], ladders: { "puma" => [1, 16] },
                                     edge_steps: 0)
    assert(lines.any? { |l| l == "memory: unicorn left out: unicorn x2: failed to boot (exit 1)" }, lines.join("\n"))
    round1 = journal.rows.find { |r| r["round"] == 1 }
    failed = round1["decisions"].find { |d| d["setup"] == "puma x4:16" }
    assert_equal [false, "puma x4:16: failed to boot (exit 1)"], failed.values_at("keep", "reason")
    assert_equal "puma x3:16", rec["setup"]
    assert_nil rec["pareto"].find { |r| r["setup"] == "puma x4:16" }, "nothing measured, so not in the table"
  end

  def test_a_setup_whose_measured_footprint_is_over_budget_is_never_recommended
    # Estimated from x2:1 (20 + 12 x W), but threads cost memory: x4:16 measures 20 + 12 x 4 + 40 = 108 MiB.
    model = ->(s) { IO_BOUND.call(s).merge(mb: 20.0 + 12.0 * s.workers + (s.threads >= 16 ? 40.0 : 0.0)) }
    rec, journal, = tune(model: model, servers: %w[puma], budget: 100)
    refute_equal "puma x4:16", rec["setup"]
    round1 = journal.rows.find { |r| r["round"] == 1 }
    assert(round1["decisions"].none? { |d| d["setup"] == "puma x4:16" && d["keep"] })
  end

  def test_no_server_measured_is_an_error
    e = assert_raises(Rackbench::Error) { tune(servers: %w[unicorn], fail: ["unicorn x2"]) }
    assert_match(/no server could be measured \(unicorn\)/, e.message)
  end

  def test_nothing_fits_the_budget_is_an_error
    e = assert_raises(Rackbench::Error) { tune(servers: %w[unicorn], budget: 25) }
    assert_match(/no setup fits in the memory budget of 25.0 MiB: unicorn: .* not even one worker fits in 25.0 MiB; raise --memory-budget/, e.message)
  end

  def test_the_run_directory_files_render_on_their_own
    dir = File.join(tmpdir, "run")
    store = Rackbench::Store::RunDir.create(dir)
    rec, = tune(model: CPU_BOUND, servers: %w[puma unicorn], ladders: { "puma" => [1, 5] }, max_workers: 2,
                journal: Rackbench::Store::TuneJournal.new(store))
    assert_equal rec, JSON.parse(File.read(File.join(dir, "recommendation.json")))
    assert_includes File.read(File.join(dir, "config", "puma.rb")), "\nworkers 2\n"
    rows = File.readlines(File.join(dir, "tune.jsonl")).map { |l| JSON.parse(l) }
    assert_equal %w[footprint space round level confirm edges], rows.map { |r| r["type"] }.uniq
    assert_equal [1, 2, 3], rows.select { |r| r["type"] == "round" }.map { |r| r["round"] }
    io = StringIO.new
    Rackbench::Report::TuneText.new(dir, io: io).render
    text = io.string
    assert_match(/^Recommended: puma x2:1 — \d+ req\/s within p99 300 ms/, text)
    assert_match(/^  runner-up: puma x2:5; decided by p99, settled, over 3 paired rounds \(paired rounds: Student's t .*; equivalence margin \+-5%; two families, each at 5%/, text)
    assert_match(/^  puma x2:5 against puma x2:1 \(3 paired rounds at \d+ req\/s\): req\/s equivalent .*puma x2:1 wins: decided lower p99/, text)
    refute_match(/significant|within noise/, text)
    assert_match(%r{^  config: #{Regexp.escape(dir)}/config/puma\.rb \(start with: bundle exec puma -C config/puma\.rb\)$}, text)
    assert_match(/^\* puma x2:1 +\d+ +\d+ +44\.0  recommended$/, text)
    assert_match(/^. unicorn x1 .* dropped in round 1$/, text)
    assert_match(/^  puma x2:5: #2: holds the SLO in 3\/3 rounds/, text)
    assert_match(/^  edges: optimum NOT bracketed \(--max-workers\): puma x3:1 is past it: --max-workers 2$/, text)
    assert_match(/^round 1 \(closed-loop probe: 1-5 s at c = 2 x workers x threads/, text)
  end

  def test_an_slo_out_of_reach_at_light_load_ends_round_two_with_no_recommendation
    model = ->(s) { IO_BOUND.call(s).merge(knee: nil) }
    rec, journal, lab, lines = tune(model: model, servers: %w[unicorn])
    assert_nil rec["setup"]
    assert_equal "unmet", rec["evidence"]
    assert_equal 1, lab.calls.count { |k, _| k == :knee }, "the best setup failing at 5% load settles it"
    assert_match(%r{\Ano setup met p99 <= 300 ms on /pause/0.05: unicorn x4 failed it even at 4.0 req/s, 5% of its saturated throughput \(p99 1.00 s over 300 ms\): the endpoint's own latency is over the objective; raise --slo-p99 \(e.g. --slo-p99 2s\) or tune another endpoint\z}, rec["reason"])
    assert_equal "unicorn x4", rec.dig("best_throughput", "setup")
    assert_empty journal.files
    assert(lines.any? { |l| l.include?("no other setup will pass") })
  end

  # The knee search passes 1.1 x the saturated throughput, but the server
  # holds only 0.8 x over longer runs: capped at 90% of the saturated
  # throughput the rounds fail, and run again at 85% of that.
  def test_a_knee_that_does_not_hold_over_longer_runs_is_confirmed_lower
    model = ->(s) { IO_BOUND.call(s).then { |m| m.merge(knee: m[:cap] * 1.1, held: m[:cap] * 0.8) } }
    rec, journal, _lab, lines = tune(model: model, servers: %w[unicorn], edge_steps: 0)
    assert_equal "unicorn x4", rec["setup"]
    assert(lines.any? { |l| l.match?(%r{round 3/3: no finalist held the SLO at 71.\d req/s over 2.7 s; the rounds again at 6\d.\d req/s}) }, lines.join("\n"))
    assert_match(/\Aunicorn x4 — 6\d.\d req\/s within p99 300 ms \(3\/3 paired rounds of 2.7 s at 6\d.\d req\/s held it, p99 \d+ ms; 71.\d req\/s, 90% of the leader's saturated throughput, did not hold over 2.7 s\)/, rec["reason"])
    assert_equal true, rec.dig("confirm", "retried")
    assert_in_delta 0.85 * 0.9 * 80, rec.dig("confirmation", "rate"), 1.0
    assert_equal 3, journal.rows.find { |r| r["round"] == 3 }["round"]
  end

  # Issue 34: round 3's rounds the load generator could not hold (its sends
  # late, behind "client") are misses: no recommendation rests on them, and
  # the words say the load generator's, not "its sustainable rate is lower".
  class ClientConfirmLab < FakeLab
    def initialize(*args, client: [], **opts)
      super(*args, **opts)
      @client = client
    end

    def confirm(setup, **opts)
      super.tap do |o|
        next unless @client.include?(setup.label)

        o.records.each { |r| r.merge!("valid" => false, "behind" => "client", "invalid_reason" => "the load generator fell behind") }
      end
    end
  end

  def confirm_with_client(client, servers:, **opts)
    clock = [0.0]
    deadline = Tune::Deadline.new(600, clock: -> { clock[0] })
    lab = ClientConfirmLab.new(IO_BOUND, clock, client: client)
    lab.deadline = deadline
    lines = []
    journal = FakeJournal.new
    rec = Tune.new(lab: lab, journal: journal, deadline: deadline, servers: servers, budget_mb: 2048,
                   slo: Rackbench::Stats::Slo.new(p99_ms: 300), endpoint: "/pause/0.05", cores: 2,
                   say: ->(line) { lines << line }, **opts).call
    [rec, journal, lines]
  end

  def test_confirmations_the_load_generator_could_not_hold_are_misses_said_as_its_own
    rec, journal, lines = confirm_with_client(["unicorn x4"], servers: %w[unicorn], edge_steps: 0)
    assert_equal "unicorn x4", rec["setup"]
    assert_equal [0, 3, 3], rec["confirmation"].values_at("passes", "client", "n")
    assert_equal false, rec.dig("confirmation", "holds")
    # Round 3 ran, but its winner held nothing: the evidence says so, as the reason does.
    assert_equal "unconfirmed", rec["evidence"]
    assert_match(/did not hold the SLO in most rounds/, rec["evidence_note"])
    assert_in_delta 0.85 * 72.0, rec["client_bound"], 0.1
    assert_match(/\Aunicorn x4 — the best found, but not confirmed: the load generator fell behind in 3 of 3 rounds at 61.2 req\/s /, rec["reason"])
    refute_match(/sustainable rate is lower/, rec["reason"])
    assert_includes rec["reason"], "; round 3's rounds at 61.2 req/s: the load generator could not hold 61.2 req/s on this machine"
    assert_includes lines, "round 3/3: round 1 at 72.0 req/s (unicorn x4): unicorn x4 missed (the load generator fell behind, " \
                           "not the server: counted as a miss)"
    confirms = journal.rows.select { |r| r["type"] == "confirm" }
    assert(confirms.all? { |r| r["results"].all? { |x| x["client"] == true && x["pass"] == false } }, confirms.inspect)
  end

  def test_the_confirm_rate_is_capped_at_90_percent_of_the_saturated_throughput
    model = ->(s) { IO_BOUND.call(s).then { |m| m.merge(knee: m[:cap] * 1.05) } }
    rec, = tune(model: model, servers: %w[unicorn], edge_steps: 0)
    assert_equal [true, false], rec["confirm"].values_at("capped", "retried")
    assert_in_delta 0.9 * 80, rec["confirm"]["rate"], 1.0
    assert_match(/; 90% of the leader's saturated throughput, below its knee of 84.0 req\/s, so that a queue stays short\)/, rec["reason"])
  end

  # A mix whose requests spend a third of their time on CPU: one process's
  # GVL saturates near 3 threads; 2 cores. The model's optimum agrees: every
  # setup with 2 workers and 3 or more threads reaches the 2-core bound.
  THIRD_CPU = lambda do |setup|
    per_process = [setup.threads, 3].min / 3.0 # cores one process fills
    cap = [setup.workers * per_process, 2.0].min * 100.0
    { cap: cap, knee: cap * 0.9, p99: 60.0 + 4.0 * setup.threads, mb: 20.0 + 12.0 * setup.workers + setup.threads,
      cpu_share: 1 / 3.0 }
  end

  # Issue 26, item 4: the footprint probes' split predicts the setup; round 1
  # probes the nearest first; the prediction is printed beside the finding.
  def test_the_probe_split_predicts_and_round_one_starts_there
    rec, journal, lab, lines = tune(model: THIRD_CPU, servers: %w[puma], max_workers: 4)
    guess = journal.rows.find { |r| r["type"] == "prediction" }
    assert_equal ["puma x2:3", 0.333, 3.0], guess.values_at("setup", "cpu_share", "threads_per_process")
    assert_includes lines, "prediction: puma x2:3 (CPU is 33% of a request's time (1/f = 3.0 threads per process); " \
                           "workers: one per core, memory fits 4)"
    probes = lab.calls.select { |kind, _| kind == :probe }.map(&:last).drop(1) # after the footprint probe (x2:1)
    assert_equal "puma x2:3", probes.first, "round 1 starts at the prediction: #{probes.first(4)}"
    assert_equal ["puma x2:2", "puma x2:5", "puma x3:3", "puma x4:3"], probes[1, 4].sort, "then its nearest neighbours"
    versus = rec.fetch("prediction")
    assert_equal ["puma x2:3", rec["setup"]], versus.values_at("predicted", "found")
    assert_match(/\Apredicted puma x2:3 \(CPU is 33% .*\); found #{Regexp.escape(rec["setup"])}\z/, lines.last)
  end

  # --no-predict: the prediction is said, round 1 keeps its plain order (largest capacity first).
  def test_no_predict_keeps_the_plain_order
    _rec, journal, lab, = tune(model: THIRD_CPU, servers: %w[puma], max_workers: 4, predict: false)
    refute_empty journal.rows.select { |r| r["type"] == "prediction" }
    probes = lab.calls.select { |kind, _| kind == :probe }.map(&:last).drop(1)
    assert_equal "puma x4:16", probes.first
  end

  # Without the probe's split nothing is predicted and round 1 keeps its order.
  def test_no_split_no_prediction
    rec, journal, = tune(model: CPU_BOUND, servers: %w[puma], ladders: { "puma" => [1, 3] }, max_workers: 2)
    assert_nil rec["prediction"]
    assert_empty journal.rows.select { |r| r["type"] == "prediction" }
  end
  # Issue 46, item 9.4: what tune said on a new user's walk.

  # Out of time in round 1: one line for the setups not probed, not one
  # countdown line each with no probe between them (24 such lines).
  def test_round_one_out_of_time_says_the_rest_in_one_line
    _rec, _journal, lab, lines = tune(seconds: 60)
    countdown = lines.grep(/\Around 1\/3: \d+ setups? left to probe/)
    probes = lab.calls.count { |k, _| k == :probe }
    assert_operator countdown.size, :<=, probes, "a countdown line per probe at most:\n#{lines.join("\n")}"
    assert_includes lines, "round 1/3: the time budget ran out: 24 setups not probed, leader puma x4:16 (~1272 req/s)"
  end

  # Round 3's rounds not valid (they did not hold their schedule) decide
  # nothing: no "PSS larger by 16% ... wins" from them, and not confirmed.
  class InvalidConfirmLab < FakeLab
    def confirm(setup, **opts)
      super.tap { |o| o.records.each { |r| r.merge!("valid" => false, "invalid_reason" => "achieved 10.0 req/s, 50% of the target") } }
    end
  end

  def test_round_three_on_trials_not_valid_decides_nothing
    clock = [0.0]
    deadline = Tune::Deadline.new(600, clock: -> { clock[0] })
    lab = InvalidConfirmLab.new(IO_BOUND, clock)
    lab.deadline = deadline
    rec = Tune.new(lab: lab, journal: FakeJournal.new, deadline: deadline, servers: %w[puma], budget_mb: 2048,
                   slo: Rackbench::Stats::Slo.new(p99_ms: 300), endpoint: "/pause/0.05", cores: 2).call
    assert_equal "unconfirmed", rec["evidence"]
    assert_empty rec["decisions"], "no paired decision rests on a round not valid"
    refute_match(/larger by|smaller by|faster by|slower by|equivalent within/, rec["reason"])
  end

  # "what limits it at c=24": an open-loop trial's concurrency is its
  # connections, not a level; the line names the closed-loop probe's c, or
  # the highest rate.
  def test_what_limits_it_names_a_level_the_winner_ran_at
    dir = File.join(tmpdir, "run")
    store = Rackbench::Store::RunDir.create(dir)
    tune(model: CPU_BOUND, servers: %w[puma], ladders: { "puma" => [1, 3] }, max_workers: 2, edge_steps: 0,
         journal: Rackbench::Store::TuneJournal.new(store))
    rec = JSON.parse(File.read(File.join(dir, "recommendation.json")))
    setup = Rackbench::Setup.parse(rec["setup"])
    probe = { "key" => "p", "setup" => rec["setup"], "concurrency" => 2 * setup.capacity, "loop" => "closed", "rps" => 100.0,
              "requests" => 100, "latency_ms" => { "mean" => 10.0, "p99" => 20.0 } }
    open = probe.merge("key" => "o", "concurrency" => 24, "rate" => 180.0, "loop" => "open")
    File.write(File.join(dir, "trials.jsonl"), [probe, open].map { |t| "#{JSON.generate(t)}\n" }.join)
    io = StringIO.new
    Rackbench::Report::TuneText.new(dir, io: io).render
    assert_match(/^  what limits it at c=#{2 * setup.capacity}: /, io.string)
    File.write(File.join(dir, "trials.jsonl"), "#{JSON.generate(open)}\n")
    io = StringIO.new
    Rackbench::Report::TuneText.new(dir, io: io).render
    assert_match(%r{^  what limits it at r=180 req/s offered: }, io.string)
    refute_match(/c=24/, io.string)
  end

  # A pair that would take more rounds than round 3 runs is said so, not as
  # advice to run more rounds (tune stopped at 176 s of a 600 s budget).
  def test_a_pair_past_round_threes_rounds_says_why_it_stopped
    words = Tune::PairWords
    pair = Struct.new(:settled, :rounds_needed, :rounds) { def settled? = settled }
    assert_equal "; not settled: it would take about 14 paired rounds, more than the 10 round 3 runs at most, so it stopped there",
                 words.still_open(pair.new(false, 14, 3), 10)
    assert_equal "; not settled: about 2 more rounds would settle it", words.still_open(pair.new(false, 5, 3), 10)
    assert_equal "", words.still_open(pair.new(true, nil, 3), 10)
  end
end
