# frozen_string_literal: true

require_relative "findings"

module Rackbench
  module Suites
    # Seed 000: Tommaso Pavese, "Unicorn vs Puma: Rails server benchmarks".
    # Six endpoints (CPU, IO, mixed) on Unicorn xN, x2N and Puma xN:5, xN:10,
    # x2N:5, x2N:10 (the post: 4 cores, x4 and x8), ab -t 30 at c = 1..50,
    # sleeping after each level of a CPU-heavy endpoint. Its conclusions: Puma
    # far ahead on IO and mixed work; Unicorn level with or slightly ahead of
    # Puma on CPU work.
    module Pavese
      SEED = "000"
      TITLE = 'Tommaso Pavese, "Unicorn vs Puma: Rails server benchmarks"'
      LEVELS = [1, 10, 20, 30, 40, 50].freeze
      QUICK_LEVELS = [1, 30].freeze
      CPU = %w[fibonacci template-render].freeze
      PAUSE_S = 2        # the post's /pause/2 and /pause-and-render/2
      UPSTREAM_S = 0.6   # the post's facebook.com call took ~600 ms
      QUICK_PAUSE_S = 0.2

      module_function

      def summary
        "Unicorn vs Puma on CPU, IO and mixed endpoints (Pavese)"
      end

      def description(cores)
        <<~TEXT
          Reproduces #{TITLE}: /fibonacci, /template-render, /pause, /pause-and-render, /network-io and
          /network-io-and-render (a local upstream stub that answers in #{UPSTREAM_S} s, like the post's facebook.com
          call) on Unicorn xN and x2N and Puma xN:5, xN:10, x2N:5, x2N:10 (N = #{cores} cores; the post had 4),
          c = #{LEVELS.join(', ')}, 30 s per trial and a 5 s cool-down after each level of a CPU-heavy endpoint, as
          the post's script did. /fibonacci/#{fib_n(cores)}: the post's n = 32 took 0.34 s there and ~0.5 s on
          Ruby 3.1 here, so at c = 50 a request would queue 50 x 0.5 / N s (12.5 s on 2 cores, against 4 s in
          the post); n = 30 (~0.19 s) keeps that queue near the post's below 4 cores.

          Quick: /fibonacci/25, pauses and upstream #{QUICK_PAUSE_S} s, c = #{QUICK_LEVELS.join(', ')}, 2 s per trial,
          Unicorn xN, Puma xN:5 and xN:10, 2 rounds so that each difference has a paired 95% interval (ahead,
          level within 5%, or undecided: two rounds decide only large or steady differences, -r 3 or more decides
          more; c = 10 is left out to keep it to a few minutes).

          Findings: the post's conclusions checked at the highest common concurrency.
        TEXT
      end

      def settings(cores:, quick:)
        n = cores
        if quick
          { setups: ["unicorn x#{n}", "puma x#{n}:5", "puma x#{n}:10"],
            endpoints: endpoints(25, QUICK_PAUSE_S), concurrency: QUICK_LEVELS, duration: 2, warmup: 1,
            cooldown: 1, upstream_delay: QUICK_PAUSE_S, repeat: 2 }
        else
          { setups: ["unicorn x#{n}", "unicorn x#{2 * n}", "puma x#{n}:5", "puma x#{n}:10", "puma x#{2 * n}:5",
                     "puma x#{2 * n}:10"],
            endpoints: endpoints(fib_n(n), PAUSE_S), concurrency: LEVELS, duration: 30, warmup: 5, cooldown: 5,
            upstream_delay: UPSTREAM_S, timeout: timeout(n) }
        end
      end

      # CPU and IO endpoints alternate, as in the post's script.
      def endpoints(fib, pause)
        ["/fibonacci/#{fib}", "/pause/#{pause}", "/template-render", "/network-io", "/network-io-and-render",
         "/pause-and-render/#{pause}"]
      end

      def fib_n(cores)
        cores >= 4 ? 32 : 30
      end

      # At c = 50 a /pause/2 request waits behind 50 x 2 / N s of other
      # requests on Unicorn xN: the timeout leaves a 20% margin (30 s at least).
      def timeout(cores)
        [30, (LEVELS.max * PAUSE_S * 1.2 / cores).ceil].max
      end

      def findings(view)
        results = view.endpoints.filter_map { |endpoint| endpoint_finding(view, endpoint) }
        lines = results.map(&:first)
        lines << threads_vs_processes(view)
        agreed = results.count(&:last)
        lines << "Agrees with the post on #{agreed} of #{results.size} endpoints (the post: Puma ahead on IO and " \
                 "mixed work; Unicorn level with or slightly ahead of Puma on CPU work, no Puma lead)."
        lines.compact
      end

      # [sentence, agrees with the post?] for one endpoint: best Unicorn vs best Puma.
      def endpoint_finding(view, endpoint)
        level = view.top_level(endpoint)
        puma = view.best(endpoint, level, server: "puma")
        unicorn = view.best(endpoint, level, server: "unicorn")
        return nil unless puma && unicorn

        cmp = view.compare(endpoint, level, puma, unicorn)
        cpu = CPU.include?(kind(endpoint))
        agrees = cpu ? cmp.verdict != :a : cmp.verdict == :a
        text = sentence(view, endpoint, level, cmp)
        text += cpu ? " The post found Unicorn level or slightly ahead here." : " The post found Puma ahead here." \
          unless agrees
        [text, agrees]
      end

      def sentence(view, endpoint, level, cmp)
        puma = name(view, endpoint, cmp.a, "Puma")
        unicorn = name(view, endpoint, cmp.b, "Unicorn")
        pu = "#{puma} #{Findings.rps(cmp.a_rps)}"
        un = "#{unicorn} #{Findings.rps(cmp.b_rps)}"
        return "On #{kind(endpoint)} neither #{unicorn} nor #{puma} answered a request at c=#{level}." if cmp.none?

        case cmp.verdict
        when :a
          "Puma #{cmp.far? ? 'far ' : ''}ahead on #{kind(endpoint)}: #{pu} req/s vs #{un} req/s at c=#{level} " \
            "(#{cmp.change}; #{cmp.note})."
        when :b
          flipped = view.compare(endpoint, level, cmp.b, cmp.a)
          "Unicorn #{flipped.far? ? 'far ' : ''}ahead on #{kind(endpoint)}: #{un} req/s vs #{pu} req/s at " \
            "c=#{level} (#{flipped.change}; #{flipped.note})."
        when :level
          "On #{kind(endpoint)} Unicorn is level with Puma: #{un} vs #{pu} req/s at c=#{level} " \
            "(#{cmp.change} for Puma; #{cmp.note})."
        else
          "On #{kind(endpoint)} Unicorn and Puma are not decided apart: #{un} vs #{pu} req/s at c=#{level} " \
            "(#{cmp.change} for Puma; #{cmp.note})."
        end
      end

      # "puma x2:5 (best Puma)" when several setups of the server ran.
      def name(view, endpoint, setup, server)
        view.setups(endpoint, server: view.server_of(setup)).size > 1 ? "#{setup} (best #{server})" : setup
      end

      # The post: the same threads in fewer processes did better on IO (x4:10
      # over x8:5), more processes on CPU. Only when both shapes ran (full mode).
      def threads_vs_processes(view)
        pairs = view.endpoints.filter_map do |endpoint|
          pumas = view.setups(endpoint, server: "puma")
          few = pumas.find { |s| pumas.any? { |o| o != s && same_threads_more_workers?(s, o) } }
          next unless few

          many = pumas.find { |o| o != few && same_threads_more_workers?(few, o) }
          level = view.top_level(endpoint)
          cmp = view.compare(endpoint, level, few, many)
          "#{kind(endpoint)} #{few} #{Findings.rps(cmp.a_rps)} vs #{many} #{Findings.rps(cmp.b_rps)} " \
            "(#{cmp.verdict == :level ? 'level' : "#{cmp.change} for #{few}"}; #{cmp.note})"
        end
        return nil if pairs.empty?

        "Same threads in fewer vs more Puma processes (the post: fewer won on IO, more on CPU), req/s: " \
          "#{pairs.join('; ')}."
      end

      def same_threads_more_workers?(few, many)
        (w1, t1) = shape(few)
        (w2, t2) = shape(many)
        !w1.nil? && !w2.nil? && w1 * t1 == w2 * t2 && w1 < w2
      end

      # [workers, threads] of "puma xW:T".
      def shape(setup)
        m = setup.match(/x(\d+):(\d+)/)
        m && [m[1].to_i, m[2].to_i]
      end

      def kind(endpoint)
        endpoint.to_s.split("/")[1].to_s
      end
    end
  end
end
