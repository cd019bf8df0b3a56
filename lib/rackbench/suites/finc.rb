# frozen_string_literal: true

require_relative "findings"

module Rackbench
  module Suites
    # Seed 002: Guy Callaghan (FiNC), "Switching from Unicorn to Puma". A
    # Rails app whose requests spent 25-40% of their time in IO; Puma threads
    # swept 2..6 (no gain beyond 4, only more memory); Puma 4W4T sustained
    # twice the concurrent clients of Unicorn 6W with a 15% smaller footprint.
    module Finc
      SEED = "002"
      TITLE = 'Guy Callaghan (FiNC), "Switching from Unicorn to Puma"'
      THREADS = (2..6).freeze
      # ~2.7 ms of rendering and 1.5 ms asleep: ~36% IO, in the post's 25-40%.
      ENDPOINT = "/pause-and-render/0.0015"
      LEVEL_FACTORS = [1, 2, 4, 8, 16, 32, 64].freeze
      QUICK_FACTORS = [1, 4, 16, 64].freeze

      module_function

      def summary
        "Puma threads 2-6 vs Unicorn: req/s, memory, load sustained (FiNC)"
      end

      def description(cores)
        <<~TEXT
          Reproduces #{TITLE}: Puma x#{cores}:2 .. x#{cores}:6 (workers fixed at N = #{cores} cores) against
          #{unicorn(cores)} (the post's Unicorn 6W against Puma 4W: 1.5 Unicorn workers per Puma worker) on
          #{ENDPOINT} (~36% of each request asleep, the post's requests spent 25-40% in IO), c = N x
          #{LEVEL_FACTORS.join(', ')}, 60 s per trial (the post's one-minute tests). Reports req/s per thread count,
          the memory footprint (sum of PSS) of each setup, and the highest level each sustains in this sweep:
          no failed request and no failed health check (the post's containers were killed when their load
          balancer's health checks timed out; --health-timeout, 2 s by default). `rackbench capacity`
          answers the sustained-load question directly, with a search instead of fixed levels.

          Quick: c = N x #{QUICK_FACTORS.join(', ')}, 2 s per trial.
        TEXT
      end

      def unicorn(cores)
        "unicorn x#{(cores * 1.5).ceil}"
      end

      def settings(cores:, quick:)
        factors = quick ? QUICK_FACTORS : LEVEL_FACTORS
        base = { setups: [unicorn(cores)] + THREADS.map { |t| "puma x#{cores}:#{t}" }, endpoints: [ENDPOINT],
                 concurrency: factors.map { |f| f * cores } }
        quick ? base.merge(duration: 2, warmup: 1, cooldown: 1) : base.merge(duration: 60, warmup: 5, cooldown: 2)
      end

      def findings(view)
        view.endpoints.flat_map do |endpoint|
          level = view.top_level(endpoint)
          [threads(view, endpoint, level), footprint(view, endpoint, level), sustained(view, endpoint)].compact
        end
      end

      def threads(view, endpoint, level)
        pumas = view.setups(endpoint, server: "puma").select { |s| view.cell(endpoint, s, level) }
                    .sort_by { |s| thread_count(s) }
        return nil if pumas.empty?

        sweep = pumas.map { |s| "#{thread_count(s)} -> #{Findings.rps(view.median(endpoint, s, level))}" }.join(", ")
        best = view.best(endpoint, level, server: "puma")
        enough = pumas.find { |s| s == best || !view.compare(endpoint, level, best, s).called? }
        gain = if enough == pumas.last
                 "req/s still rose up to #{thread_count(enough)} threads"
               else
                 "no gain beyond #{thread_count(enough)} threads (#{view.compare(endpoint, level, best, enough).note})"
               end
        unicorns = view.setups(endpoint, server: "unicorn")
                       .map { |s| "#{s} #{Findings.rps(view.median(endpoint, s, level))}" }
        "Puma threads vs req/s at c=#{level}: #{sweep}; #{gain} (the post: none beyond 4)" \
          "#{unicorns.any? ? "; #{unicorns.join(', ')} req/s" : ''}."
      end

      def thread_count(setup)
        setup[/x\d+:(\d+)/, 1].to_i
      end

      def footprint(view, endpoint, level)
        sizes = view.setups(endpoint).filter_map do |s|
          mb = view.footprint_mb(endpoint, s, level)
          "#{s} #{mb.round} MB" if mb
        end
        return "Memory was not sampled in this run: no footprint to compare." if sizes.empty?

        "Memory footprint (sum of PSS) at c=#{level}: #{sizes.join(', ')} (the post: Puma 4W4T 15% below Unicorn 6W)."
      end

      def sustained(view, endpoint)
        top = view.levels(endpoint).last
        held = view.setups(endpoint).map do |s|
          level = highest_sustained(view, endpoint, s)
          "#{s} #{level ? "c=#{level}" : 'none'}"
        end
        checked = view.setups(endpoint).any? { |s| view.health_failures(endpoint, s, top) }
        rule = checked ? "no failed request or health check" : "no failed request; no health checks were recorded"
        "Highest level sustained in this sweep (#{rule}): #{held.join(', ')}; up to c=#{top} was tried " \
          "(the post: Puma 4W4T twice Unicorn 6W; rackbench capacity searches for the limit)."
      end

      # The highest level of an unbroken run from the lowest one.
      def highest_sustained(view, endpoint, setup)
        view.levels(endpoint).select { |c| view.cell(endpoint, setup, c) }.take_while do |c|
          view.failures(endpoint, setup, c).zero? && view.health_failures(endpoint, setup, c).to_i.zero?
        end.last
      end
    end
  end
end
