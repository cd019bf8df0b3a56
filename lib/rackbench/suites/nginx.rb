# frozen_string_literal: true

require_relative "findings"

module Rackbench
  module Suites
    # Seeds 003 and 004: Thin and Unicorn deployed behind nginx (Edwin Cruz,
    # "Benchmarking thin vs unicorn": ab -c 10, 15 and 100 through nginx;
    # the App Server Arena's VMs also ran nginx in front). Measures what the
    # proxy costs or gives on a tiny response, a small one and a 0.1 s wait.
    module Nginx
      SEED = "004"
      TITLE = 'Edwin Cruz, "Benchmarking thin vs unicorn" (with nginx in front, as in 003 too)'
      ENDPOINTS = ["/hello", "/server", "/pause/0.1"].freeze
      LEVELS = [1, 10, 15, 100].freeze
      QUICK_LEVELS = [10, 100].freeze
      FRONT = " behind nginx"

      module_function

      def summary
        "thin and unicorn with and without nginx in front (thin vs unicorn post, Arena)"
      end

      def description(cores)
        <<~TEXT
          Reproduces the deployments of #{TITLE}: #{setups(cores).join(', ')} (N = #{cores} cores) on
          #{ENDPOINTS.join(', ')}, c = #{LEVELS.join(', ')} (the post's ab -c 10, 15 and 100), 30 s per trial.
          nginx is started by rackbench with a generated config on 127.0.0.1.

          Quick: c = #{QUICK_LEVELS.join(', ')}, 2 s per trial.

          Findings: req/s behind nginx against the same server alone, per endpoint.
        TEXT
      end

      def setups(cores)
        ["thin", "thin#{FRONT}", "unicorn x#{cores}", "unicorn x#{cores}#{FRONT}"]
      end

      def settings(cores:, quick:)
        base = { setups: setups(cores), endpoints: ENDPOINTS }
        if quick
          base.merge(concurrency: QUICK_LEVELS, duration: 2, warmup: 1)
        else
          base.merge(concurrency: LEVELS, duration: 30, warmup: 2)
        end
      end

      # One sentence per server: behind nginx vs alone on every endpoint.
      def findings(view)
        direct = view.setups.reject { |s| s.end_with?(FRONT) }
        lines = direct.filter_map do |alone|
          behind = "#{alone}#{FRONT}"
          parts = view.endpoints.filter_map { |endpoint| part(view, endpoint, alone, behind) }
          "#{behind} vs #{alone}: #{parts.join('; ')}." if parts.any?
        end
        lines.empty? ? ["No server ran both alone and behind nginx: nothing to compare."] : lines
      end

      def part(view, endpoint, alone, behind)
        level = view.top_level(endpoint)
        return nil unless view.cell(endpoint, alone, level) && view.cell(endpoint, behind, level)

        cmp = view.compare(endpoint, level, behind, alone)
        return "#{endpoint}: neither answered at c=#{level}" if cmp.none?

        said = cmp.verdict == :level ? "level" : cmp.change
        "#{endpoint} #{Findings.rps(cmp.a_rps)} vs #{Findings.rps(cmp.b_rps)} req/s at c=#{level} (#{said}; #{cmp.note})"
      end
    end
  end
end
