# frozen_string_literal: true

require "json"
require "rackbench/stats/attribution"
require "rackbench/stats/frame_stacks"
require_relative "run_fixture"

module Rackbench
  # run --profile's profiles.jsonl lines with stacks, for two setups over 6
  # rounds: against A, B spends more in Fib.fib (grew), less in
  # Slow#shrink (shrank), the same in App#call and in a frame whose name
  # is hostile HTML; the Stats::Attribution of the pair; and a run
  # directory of them, B 10% slower in req/s over 6 paired rounds.
  module ProfileStacksFixture
    A = "puma x1:2"
    B = "puma x2:1"
    EVIL = "<script>alert(1)</script>#x"
    NOISE = [0.03, -0.02, 0.01, -0.04, 0.02, 0.0].freeze
    # self samples per round: [A, B]
    SELF = { "Fib.fib" => [400, 480], "Slow#shrink" => [200, 100], "App#call" => [100, 100], EVIL => [100, 100] }.freeze
    FILES = { "Fib.fib" => "app/fib.rb", "Slow#shrink" => "app/slow.rb", "App#call" => "app.rb", EVIL => "app/<b>.rb" }.freeze

    module_function

    def profiles
      NOISE.each_with_index.flat_map { |e, i| [record(A, i + 1, 0, e), record(B, i + 1, 1, -e)] }
    end

    # One trial of 1000 requests, 1 sample = 0.01 ms of CPU per request.
    def record(setup, round, side, e)
      own = SELF.to_h { |name, counts| [name, (counts[side] * (1 + e)).round] }
      names = SELF.keys # stack_frames: App#call (2), the others called from it
      stacks = [[own["App#call"], [2]], [own["Fib.fib"], [2, 0]], [own["Slow#shrink"], [2, 1]], [own[EVIL], [2, 3]]]
      { "key" => "#{setup}|#{round}", "setup" => setup, "endpoint" => "/fib", "concurrency" => 2, "repetition" => round,
        "requests" => 1000, "errors" => [], "missing" => [],
        "processes" => [{ "pid" => 1, "samples" => own.values.sum, "cpu_s" => own.values.sum / 100.0, "alloc" => 1000,
                          "frames" => own.map { |n, s| [n, FILES[n], s, s] },
                          "stack_frames" => names.map { |n| [n, FILES[n]] }, "stacks" => stacks }] }
    end

    def entry(ratio: 0.95)
      d = Stats::Decision.of([100.0] * 4, [100.0 * ratio * 1.01, 100.0 * ratio * 0.99, 100.0 * ratio * 1.005, 100.0 * ratio * 0.995],
                             paired: true)
      Stats::Decisions::Entry.new(endpoint: "/fib", level: 2, loop: "closed", a: A, b: B, metric: "rps", decision: d)
    end

    def attribution
      Stats::Attribution.for(entry, Stats::FrameTimes.of(profiles))
    end

    def stacks
      Stats::FrameStacks.of(profiles)
    end

    RPS_NOISE = [0.01, -0.01, 0.005, -0.005, 0.0, 0.008].freeze

    def write_run(dir)
      trials = [[A, 1000.0, 1], [B, 900.0, -1]].flat_map do |setup, rps, sign|
        RunFixture.repetitions(RPS_NOISE.map { |e| rps * (1 + sign * e) }, little: true, setup: setup, endpoint: "/fib", concurrency: 2)
      end
      RunFixture.write(dir, trials: trials, setups: [RunFixture.ok_setup(A), RunFixture.ok_setup(B)])
      File.write(File.join(dir, "profiles.jsonl"), profiles.map { |p| "#{JSON.generate(p)}\n" }.join)
      dir
    end
  end
end
