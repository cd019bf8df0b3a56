# frozen_string_literal: true

require_relative "../plan/setup"
require_relative "findings"

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

      # The post's figures, stated beside the measured ones.
      POST = "JRuby 1.7.3, a Rails blog, siege -b -t30s: Puma ~420 vs Unicorn ~350 req/s at 16 users; " \
             "at 128 users Puma ~50 ms vs Unicorn ~400 ms"

      module_function

      def summary
        "Puma x1:16 on JRuby vs Unicorn on MRI, c = 1..128, siege (JRuby post)"
      end

      def puma_setup
        JRUBY_SETUP
      end

      def description(cores)
        <<~TEXT
          Reproduces the post "#{TITLE}": Unicorn xN on MRI (N = #{cores} cores; the post: 3 workers, its memory
          limit) against Puma in one JVM with 16 threads ("#{JRUBY_SETUP}"), on #{ENDPOINT}, c = #{LEVELS.join(', ')},
          30 s per trial (the post: siege -b -t30s), with siege as the post's engine in its default configuration
          ("siege-close": a new connection per request; under keep-alive siege counts every response Unicorn
          ends with Connection: close as a failure).

          Warm-up: --warmup steady (5 s windows until two agree within 5%, at most 90 s): JRuby's JIT needs
          20-30 s of load, and a fixed 10 s warm-up measured a third to a fifth of its peak here.

          Corrected view: run it again with --engine wrk (keep-alive, latency percentiles, closed-loop).

          Quick: c = #{QUICK_LEVELS.join(', ')}, 2 s per trial, 3 s warm-up windows (at most 30 s).

          Findings: peak req/s of each and their mean latency at the highest level, beside the post's.
          Needs JRuby (bin/setup installs it; rackbench servers shows it).
        TEXT
      end

      def settings(cores:, quick:)
        base = { setups: ["unicorn x#{cores}", JRUBY_SETUP], endpoints: [ENDPOINT], engine: "siege-close", warmup: "steady",
                 warmup_tolerance: 0.05 }
        if quick
          base.merge(concurrency: QUICK_LEVELS, duration: 2, warmup_window: 3, warmup_max: 30, cooldown: 1)
        else
          base.merge(concurrency: LEVELS, duration: 30, warmup_window: 5, warmup_max: 90, cooldown: 2)
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
        cmp = view.compare(endpoint, peak[lead], lead, other, level_b: peak[other])
        shown = [lead, other].map { |s| "#{s} #{Findings.rps(view.median(endpoint, s, peak[s]))} at c=#{peak[s]}" }
        verdict = case cmp.verdict
                  when :level then "level"
                  when :a then "#{lead} ahead by #{cmp.change}"
                  when :b then "#{other} decided ahead over the rounds, though #{lead}'s median is higher"
                  else "#{cmp.change} for #{lead}"
                  end
        "Peak req/s on #{endpoint}: #{shown.join(' vs ')} (#{verdict}; #{cmp.note}; the post: Puma ~420 vs Unicorn ~350 at 16 users)."
      end

      def latency(view, endpoint)
        level = view.top_level(endpoint)
        means = view.setups(endpoint).map do |s|
          "#{s} #{Findings.ms(view.median(endpoint, s, level) { |t| t.dig('latency_ms', 'mean') })}"
        end
        "Mean latency at c=#{level}: #{means.join(' vs ')} (the post at 128: Puma ~50 ms vs Unicorn ~400 ms; " \
          "closed-loop latency)."
      end

      # What holds at this scale: the post's claim is that Puma on JRuby
      # leads at peak and keeps latency low under 128 users.
      def runtime_note(view)
        unless view.setups.any? { |s| s.include?("on jruby") }
          return "Puma ran on MRI (no JRuby setup in this run), so this is not the post's JRuby comparison: " \
                 "run the suite as it is (\"#{JRUBY_SETUP}\")."
        end

        "Puma ran on JRuby, as in the post (#{POST}). This run: the arena's #{ENDPOINT} on this machine's cores, " \
          "not the post's Rails blog and database; compare the direction of each finding with the post's, not the figures."
      end
    end
  end
end
