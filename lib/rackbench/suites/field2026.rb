# frozen_string_literal: true

require_relative "arena"
require_relative "nginx"

module Rackbench
  module Suites
    # The 2026 field, after itsi-server-benchmarks (seven Ruby servers and
    # proxies in front, one run each, no repetitions or CPU sampling): every
    # server a Ruby team weighs today on the arena, N processes each (threads
    # where the server has them, fibers for Falcon), and Puma behind Thruster
    # as Rails 8's Dockerfile deploys it. rackbench adds what the original
    # lacked: rounds, CPU and memory per process, and a decision per pair.
    module Field2026
      SEED = nil # no seed study made it; the nearest published one is itsi-server-benchmarks
      TITLE = "the 2026 field (after itsi-server-benchmarks)"
      ENDPOINTS = ["/hello", "/fibonacci/25", "/pause/0.05"].freeze
      LEVELS = [1, 16, 64].freeze
      QUICK_LEVELS = [16].freeze
      FRONT = " behind thruster"

      module_function

      def summary
        "puma, falcon, pitchfork, itsi, iodine, agoo, and puma behind thruster on the arena (the 2026 field)"
      end

      def description(cores)
        <<~TEXT
          Compares #{TITLE}: #{setups(cores).join(', ')} (N = #{cores} cores) on #{ENDPOINTS.join(', ')},
          c = #{LEVELS.join(', ')}, 3 rounds of 10 s trials. Itsi, Iodine and Agoo are opt-in servers: bin/setup
          installs them; one missing is named with the line to add.

          Quick: c = #{QUICK_LEVELS.join(', ')}, one round of 2 s trials.

          Findings: which setup led on each endpoint, with the decision against the next; Puma behind Thruster
          against Puma alone.
        TEXT
      end

      def setups(cores)
        ["puma x#{cores}:5", "falcon x#{cores}", "pitchfork x#{cores}", "itsi x#{cores}:5", "iodine x#{cores}:5",
         "agoo x#{cores}:5", "puma x#{cores}:5#{FRONT}"]
      end

      def settings(cores:, quick:)
        base = { setups: setups(cores), endpoints: ENDPOINTS }
        if quick
          base.merge(concurrency: QUICK_LEVELS, duration: 2, warmup: 1, cooldown: 1)
        else
          base.merge(concurrency: LEVELS, duration: 10, warmup: 2, cooldown: 2, repeat: 3)
        end
      end

      def findings(view)
        leaders = view.endpoints.filter_map { |endpoint| Arena.leader(view, endpoint) }
        leaders + thruster(view)
      end

      # Puma behind Thruster against the same Puma alone, per endpoint.
      def thruster(view)
        view.setups.select { |s| s.end_with?(FRONT) }.filter_map do |behind|
          alone = behind.delete_suffix(FRONT)
          parts = view.endpoints.filter_map { |endpoint| Nginx.part(view, endpoint, alone, behind) }
          "#{behind} vs #{alone}: #{parts.join('; ')}." if parts.any?
        end
      end
    end
  end
end
