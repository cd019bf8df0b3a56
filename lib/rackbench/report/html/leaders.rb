# frozen_string_literal: true

require_relative "escape"
require_relative "../number_format"
require_relative "../../stats/welch"
require_relative "../../stats/metrics"

module Rackbench
  module Report
    class Html
      # The page's headline: per endpoint at one concurrency level, which setup
      # served the most req/s, and whether the lead over the runner-up is real
      # by Welch's t-test on their repetitions (two-sided, alpha = 0.05). A lead
      # the test does not support is written "same within noise".
      class Leaders
        include Escape

        def initialize(dataset, level)
          @data = dataset
          @level = level
        end

        def render
          items = @data.endpoints.filter_map { |endpoint| item(endpoint) }
          items.empty? ? "" : "<ul class=\"leaders\">#{items.join}</ul>"
        end

        private

        def item(endpoint)
          ranked = @data.cells.setups(endpoint).filter_map { |s| @data.cells[endpoint, s, @level] }
                        .sort_by { |c| -c.rps.median.to_f }
          return nil if ranked.empty?

          best, second = ranked
          text = "<code>#{h(endpoint)}</code> <b>#{h(best.setup)}</b> #{NumberFormat.rps(best.rps.median)} req/s"
          "<li>#{text}#{second ? ", #{versus(best, second)}" : ''}</li>"
        end

        def versus(best, second)
          values = ->(cell) { Stats::Metrics["rps"].values(cell.trials) }
          test = Stats::Welch.test(values.call(second), values.call(best))
          lead = second.rps.median.to_f.positive? ? format("%+.0f%%", (best.rps.median / second.rps.median - 1) * 100) : "ahead"
          if test.nil?
            "#{lead} over #{h(second.setup)}, <span class=\"muted\">n&lt;2, cannot test</span>"
          elsif test.no_variance?
            "#{lead} over #{h(second.setup)}, <span class=\"muted\">#{Stats::Welch::NO_VARIANCE}</span>"
          elsif test.significant?
            "#{lead} over #{h(second.setup)} <span class=\"muted\">(Welch p #{p_text(test.p)})</span>"
          else
            "same within noise as #{h(second.setup)} <span class=\"muted\">(#{lead}, Welch p #{p_text(test.p)})</span>"
          end
        end

        def p_text(p)
          p < 0.001 ? "&lt; 0.001" : format("= %.3f", p)
        end
      end
    end
  end
end
