# frozen_string_literal: true

require_relative "findings"

module Rackbench
  module Suites
    # Seed 003: J. Austin Hughey, "App Server Arena" (Engine Yard): /server,
    # /pi (5,000 digits), /sleep (1 s; the arena's /pause/1) and /random on
    # Thin, Unicorn, Passenger and Puma (2 workers on 2 cores), siege -c 100.
    # Its results: Unicorn led on /pi and finished everything; Thin led on
    # /server and failed /sleep; Puma (workers = cores) failed /pi, /sleep
    # and /random.
    module Arena
      SEED = "003"
      TITLE = 'J. Austin Hughey, "App Server Arena" (Engine Yard)'
      ENDPOINTS = ["/server", "/pi/5000", "/pause/1", "/random"].freeze
      LEVELS = [10, 100].freeze

      module_function

      def summary
        "thin, unicorn, passenger, puma on /server, /pi, /sleep, /random (App Server Arena)"
      end

      def description(cores)
        <<~TEXT
          Reproduces #{TITLE}: #{ENDPOINTS.join(', ')} (/pause/1 is the post's /sleep; /random runs /server half the
          time, else /pause/1 or /pi/5000) on #{setups(cores).join(', ')} (N = #{cores} cores; the post ran 2 Puma
          workers on 2 cores with Puma's then default 16 threads), c = #{LEVELS.join(', ')} (the post: siege -c 100),
          30 s per trial. Requests slower than 30 s (siege's socket timeout) count as timeouts: the post's "failed"
          runs show up as failed requests. Runs with wrk; add --engine siege to use the post's tool, and know that
          siege ends a trial after 1,024 failed transactions by default ("failures until abort"), which is how a
          fast server was recorded as failing in the original data.

          Quick: the same endpoints and setups, 3 s per trial.

          Findings: which server led on each endpoint, and which failed requests.
        TEXT
      end

      def setups(cores)
        ["thin", "unicorn x#{cores}", "passenger x#{cores}", "puma x#{cores}:16"]
      end

      def settings(cores:, quick:)
        common = { setups: setups(cores), endpoints: ENDPOINTS, concurrency: LEVELS }
        quick ? common.merge(duration: 3, warmup: 1, cooldown: 1) : common.merge(duration: 30, warmup: 2, cooldown: 2)
      end

      def findings(view)
        view.endpoints.filter_map { |endpoint| leader(view, endpoint) } + [failures(view)]
      end

      def leader(view, endpoint)
        level = view.top_level(endpoint)
        ranked = view.ranked(endpoint, level)
        return nil if ranked.size < 2

        cmp = view.compare(endpoint, level, ranked[0], ranked[1])
        rest = ranked.drop(1).map { |s| "#{s} #{Findings.rps(view.median(endpoint, s, level))}" }.join(", ")
        head = case cmp.verdict
               when :a then "#{endpoint} at c=#{level}: #{ranked[0]} led with #{Findings.rps(cmp.a_rps)} req/s, then"
               when :b
                 "#{endpoint} at c=#{level}: #{ranked[1]} decided ahead over the rounds, though #{ranked[0]}'s median " \
                   "(#{Findings.rps(cmp.a_rps)} req/s) is higher; then"
               else "#{endpoint} at c=#{level}: no leader decided, #{ranked[0]} #{Findings.rps(cmp.a_rps)} req/s, then"
               end
        "#{head} #{rest} (#{ranked[0]} over #{ranked[1]}: #{cmp.change}; #{cmp.note})."
      end

      # Failed requests per setup over the whole run, by kind.
      def failures(view)
        totals = Hash.new { |h, k| h[k] = Hash.new(0) }
        view.failed_cells.each do |endpoint, setup, level|
          view.failure_kinds(endpoint, setup, level).each { |kind, n| totals[setup][kind] += n }
        end
        return "No setup failed a request (the post's servers failed /pi, /sleep or /random under siege)." if totals.empty?

        text = totals.map { |setup, kinds| "#{setup} #{kinds.values.sum} (#{kinds.map { |k, n| "#{n} #{k}" }.join(', ')})" }
        "Failed requests, as the post's \"failed\" runs: #{text.join('; ')}."
      end
    end
  end
end
