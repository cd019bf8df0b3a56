# frozen_string_literal: true

require_relative "../plan/setup"

module Rackbench
  module Suites
    # Seed 001: Puma on JRuby (one process, up to 16 threads) against Unicorn
    # (3 workers) on MRI, a small Rails blog's index page, siege -b -t30s at
    # up to 128 concurrent users. Its results: both peak near 16 users, Puma
    # ~420 vs Unicorn ~350 req/s; at 128 users Puma ~50 ms vs Unicorn ~400 ms.
    module Jruby
      SEED = "001"
      TITLE = "Puma on JRuby vs Unicorn on MRI"
      JRUBY_SETUP = "puma x1:16 on jruby"
      MRI_SETUP = "puma x1:16"
      ENDPOINT = "/template-render" # the post's scaffold index page rendering 10 rows
      LEVELS = [1, 2, 4, 8, 16, 32, 64, 128].freeze
      QUICK_LEVELS = [1, 16, 128].freeze

      module_function

      def summary
        "Puma x1:16 on JRuby vs Unicorn on MRI, c = 1..128 (JRuby post)"
      end

      # The Puma setup used: on JRuby when this rackbench's setup names accept
      # a runtime, else Puma on MRI (checked each time the suite is built).
      def puma_setup
        Setup.parse(JRUBY_SETUP)
        JRUBY_SETUP
      rescue UsageError
        MRI_SETUP
      end

      def jruby?
        puma_setup == JRUBY_SETUP
      end

      def description(cores)
        runtime = if jruby?
                    "Puma runs as \"#{JRUBY_SETUP}\"."
                  else
                    "This rackbench cannot name a runtime in a setup, so Puma runs as \"#{MRI_SETUP}\" on MRI: " \
                      "the post's comparison needs JRuby (\"#{JRUBY_SETUP}\")."
                  end
        <<~TEXT
          Reproduces the post "#{TITLE}": Unicorn xN on MRI (N = #{cores} cores; the post: 3 workers, its memory
          limit) against Puma in one process with 16 threads, on #{ENDPOINT}, c = #{LEVELS.join(', ')}, 30 s per
          trial after a 10 s warm-up (the post: siege -b -t30s). #{runtime}

          Runs with wrk; --engine siege uses the post's tool.

          Quick: c = #{QUICK_LEVELS.join(', ')}, 2 s per trial.

          Findings: peak req/s of each and their mean latency at the highest level.
        TEXT
      end

      def settings(cores:, quick:)
        base = { setups: ["unicorn x#{cores}", puma_setup], endpoints: [ENDPOINT] }
        if quick
          base.merge(concurrency: QUICK_LEVELS, duration: 2, warmup: 1, cooldown: 1)
        else
          base.merge(concurrency: LEVELS, duration: 30, warmup: 10, cooldown: 2)
        end
      end

      def findings(view)
        view.endpoints.flat_map do |endpoint|
          [peaks(view, endpoint), latency(view, endpoint)].compact
        end + [runtime_note(view)]
      end

      def peaks(view, endpoint)
        peak = view.setups(endpoint).to_h do |s|
          [s, view.levels(endpoint).select { |c| view.cell(endpoint, s, c) }.max_by { |c| view.median(endpoint, s, c).to_f }]
        end
        return nil if peak.size < 2

        lead, other = peak.keys.sort_by { |s| -view.median(endpoint, s, peak[s]).to_f }
        cmp = Findings::Comparison.new(a: lead, b: other, a_values: view.values(endpoint, lead, peak[lead]),
                                       b_values: view.values(endpoint, other, peak[other]))
        shown = [lead, other].map { |s| "#{s} #{Findings.rps(view.median(endpoint, s, peak[s]))} at c=#{peak[s]}" }
        verdict = { level: "level", unclear: "#{cmp.change} for #{lead}" }.fetch(cmp.verdict, "#{lead} ahead by #{cmp.change}")
        "Peak req/s on #{endpoint}: #{shown.join(' vs ')} (#{verdict}; #{cmp.note}; the post: Puma ~420 vs Unicorn ~350)."
      end

      def latency(view, endpoint)
        level = view.top_level(endpoint)
        means = view.setups(endpoint).map do |s|
          "#{s} #{Findings.ms(view.median(endpoint, s, level) { |t| t.dig('latency_ms', 'mean') })}"
        end
        "Mean latency at c=#{level}: #{means.join(' vs ')} (the post at 128: Puma ~50 ms vs Unicorn ~400 ms; " \
          "closed-loop latency)."
      end

      def runtime_note(view)
        return "Puma ran on JRuby, as in the post." if view.setups.any? { |s| s.include?("on jruby") }

        "Puma ran on MRI (no JRuby setup in this run), so this is not yet the post's JRuby comparison: " \
          "run it where \"#{JRUBY_SETUP}\" is a valid setup."
      end
    end
  end
end
