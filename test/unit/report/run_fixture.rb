# frozen_string_literal: true

require "json"
require "rackbench/version"
require "fileutils"

module Rackbench
  # Writes a run directory from given numbers, so report and compare tests
  # assert on known values: meta.json, trials.jsonl, setups.jsonl (and for a
  # capacity run, capacity.jsonl).
  module RunFixture
    META = {
      "rackbench" => Rackbench::VERSION, "ruby" => "ruby 3.1.2p20 (2022-04-12 revision 4491bb740a) [x86_64-linux-gnu]",
      "hostname" => "bench-host", "kernel" => "Linux 6.1.0", "cpu_model" => "AMD EPYC", "cores" => 2,
      "memory_bytes" => 25_276_514_304, "started_at" => "2026-11-22T15:27:16.141Z",
      "argv" => %w[rackbench run -s puma\ x2:3 -r 3], "engine" => { "name" => "wrk", "version" => "4.1.0" },
      "servers" => { "puma" => "8.0.2", "unicorn" => "6.1.0" },
      "plan" => { "duration_s" => 1.0, "warmup_s" => 0.0, "repeat" => 3 }
    }.freeze

    module_function

    # One stored trial; rps and p99 as given, the other figures derived
    # (mean: p99 / 4 unless given; Little's law wants c / rps in a closed loop).
    def trial(setup:, endpoint:, concurrency:, repetition:, rps:, p99: 10.0, errors: 0, memory: nil, cpu: nil, mean: nil)
      record = {
        "key" => "#{setup}|#{endpoint}|#{concurrency}|#{repetition}", "setup" => setup, "server" => setup.split.first,
        "workers" => 2, "threads" => 3, "endpoint" => endpoint, "concurrency" => concurrency, "repetition" => repetition,
        "started_at" => "2026-11-22T15:27:18.165Z", "engine" => "wrk", "loop" => "closed", "duration_s" => 1.0,
        "requests" => rps.round, "bytes" => rps.round * 100, "rps" => rps,
        "latency_ms" => { "min" => 0.1, "mean" => mean || p99 / 4, "stdev" => 1.0, "p50" => p99 / 5, "p75" => p99 / 3,
                          "p90" => p99 / 2, "p99" => p99, "p99.9" => p99 * 1.2, "max" => p99 * 1.5 },
        "errors" => { "connect" => 0, "read" => 0, "write" => 0, "timeout" => 0, "status" => errors },
        "error_total" => errors, "command" => ["wrk", "-c", concurrency.to_s], "log" => "x.log"
      }
      record["memory"] = memory if memory
      record["cpu"] = cpu if cpu
      record
    end

    # Trials for each value in rps_values (one repetition each).
    def repetitions(rps_values, p99s: nil, little: false, **cell)
      rps_values.each_with_index.map do |rps, i|
        mean = little ? 1000.0 * cell[:concurrency] / rps : nil # Little's law holds: req/s x mean = c
        trial(repetition: i + 1, rps: rps, p99: p99s ? p99s[i] : 10.0, mean: mean, **cell)
      end
    end

    def ok_setup(label, repetition = 1)
      { "setup" => label, "server" => label.split.first, "repetition" => repetition, "status" => "ok",
        "version" => "8.0.2", "argv" => ["puma", "-w", "2"], "port" => 40_000, "boot_s" => 1.2,
        "master_pid" => 100, "worker_pids" => [101, 102] }
    end

    # calibration: iterations per CPU-second of the CPU-speed calibrations,
    # { "start" => 450.0, "end" => 440.0 } (nil: a run made before them).
    def write(dir, trials:, setups: [], meta: META, calibration: nil)
      FileUtils.mkdir_p(File.join(dir, "logs"))
      File.write(File.join(dir, "meta.json"), JSON.pretty_generate(meta.merge("run_dir" => dir)))
      File.write(File.join(dir, "trials.jsonl"), trials.map { |t| JSON.generate(t) + "\n" }.join)
      File.write(File.join(dir, "setups.jsonl"), setups.map { |s| JSON.generate(s) + "\n" }.join)
      if calibration
        # speed: a number, or [number, the processes' samples].
        lines = calibration.map do |phase, speed|
          value, samples = speed
          { "phase" => phase, "at" => META["started_at"], "iterations_per_cpu_s" => value, "samples" => samples }.compact
        end
        File.write(File.join(dir, "calibration.jsonl"), lines.map { |l| JSON.generate(l) + "\n" }.join)
      end
      dir
    end

    CAPACITY_SLO = { "p99_ms" => 500.0, "error_rate" => 0.001, "health_checks" => false }.freeze

    # The levels of a capacity search, per setup and loop, in the order the
    # search measured them: [level, p99 (or one per trial when re-measured), pass].
    CAPACITY_LEVELS = {
      "puma x2:3" => { "closed" => [[6, 60.0, true], [12, 120.0, true], [24, 900.0, false], [18, 400.0, true]],
                       "open" => [[200.0, 50.0, true], [400.0, 2000.0, false], [300.0, [520.0, 450.0, 470.0], true],
                                  [350.0, 800.0, false]] },
      "unicorn x2" => { "closed" => [[2, 50.0, true], [4, 100.0, true], [8, 700.0, false], [6, 450.0, true]],
                        "open" => [[80.0, 60.0, true], [160.0, 1500.0, false], [120.0, 300.0, true], [140.0, 650.0, false]] }
    }.freeze

    # A `rackbench capacity` run directory: meta.json ("command" => "capacity"),
    # trials.jsonl (closed- and open-loop trials), capacity.jsonl (level rows
    # and one knee per setup), as Search::Capacity writes them.
    def capacity_run(dir, levels: CAPACITY_LEVELS, endpoint: "/pause/0.05", reason_suffix: "", knees: true)
      trials = []
      rows = []
      levels.each do |setup, loops|
        knee = { "type" => "knee", "setup" => setup, "endpoint" => endpoint, "slo" => CAPACITY_SLO }
        loops.each do |kind, steps|
          records = {}
          steps.each do |level, p99s, pass|
            keys = Array(p99s).each_with_index.map do |p99, i|
              rps = kind == "open" ? level : level * 10.0
              t = trial(setup: setup, endpoint: endpoint, concurrency: kind == "open" ? 50 : level, repetition: i + 1,
                        rps: rps, p99: p99)
              t.merge!("key" => "#{setup}|#{endpoint}|#{kind == 'open' ? "r=#{level}" : level}|#{i + 1}", "loop" => kind,
                       "rate" => kind == "open" ? level : nil, "engine" => kind == "open" ? "wrk-open" : "wrk")
              trials << t
              records[level] = t
              t["key"]
            end
            verdict = "p99 #{Array(p99s).last.round} ms #{Array(p99s).last > 500 ? 'over' : 'within'} 500 ms#{reason_suffix}"
            rows << { "kind" => kind, "level" => level, "pass" => pass, "reason" => verdict, "trials" => keys,
                      "type" => "level", "setup" => setup, "endpoint" => endpoint }
          end
          passed = steps.select { |s| s[2] }.map(&:first).max
          failed = steps.reject { |s| s[2] }.map(&:first).min
          slim = ->(l) { l && records[l].slice("key", "rps", "latency_ms", "error_total", "requests") }
          knee[kind] = { "loop" => kind, "pass" => passed, "fail" => failed, "levels_measured" => steps.size,
                         "pass_record" => slim.call(passed), "fail_record" => slim.call(failed),
                         "fail_reason" => failed && rows.find { |r| r["setup"] == setup && r["kind"] == kind && r["level"] == failed }["reason"] }
        end
        rows << knee if knees
      end
      meta = META.merge("command" => "capacity", "slo" => CAPACITY_SLO,
                        "search" => { "p99_ms" => 500.0, "errors" => 0.1, "max_levels" => 6, "loops" => %w[closed open] })
      write(dir, trials: trials, meta: meta, setups: levels.keys.map { |s| ok_setup(s) })
      File.write(File.join(dir, "capacity.jsonl"), rows.map { |r| JSON.generate(r) + "\n" }.join)
      dir
    end

    # A small complete run: 2 setups x 2 endpoints x c = 1, 8 x 3 repetitions,
    # with memory and CPU samples and one failed boot.
    def full_run(dir, memory: true)
      trials = []
      { "puma x2:3" => 1.0, "unicorn x2" => 0.6 }.each do |setup, factor|
        { "/hello" => 5000.0, "/pause/0.05" => 100.0 }.each do |endpoint, base|
          [1, 8].each do |c|
            rps = base * factor * (c == 8 ? 2 : 1)
            mem = memory ? { "pss_total_mb" => 120.0 * factor, "pss_per_worker_mb" => 45.0 * factor, "uss_total_mb" => 90.0 } : nil
            cpu = memory ? { "server_pct" => 70.0 * factor, "client_pct" => 20.0 } : nil
            # /pause/0.05 holds Little's law; /hello's mean shows wrk's latency correction (req/s x mean above c).
            trials += repetitions([rps * 0.98, rps, rps * 1.02], p99s: [20.0 / factor, 21.0 / factor, 22.0 / factor],
                                  little: endpoint == "/pause/0.05", setup: setup, endpoint: endpoint, concurrency: c,
                                  memory: mem, cpu: cpu)
          end
        end
      end
      failed = { "setup" => "thin", "server" => "thin", "repetition" => 1, "status" => "failed",
                 "reason" => "thin did not answer within 60 s", "log_tail" => "boom" }
      write(dir, trials: trials, setups: [ok_setup("puma x2:3"), ok_setup("unicorn x2"), failed])
    end
  end
end
