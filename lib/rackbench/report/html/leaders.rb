# frozen_string_literal: true

require_relative "escape"
require_relative "../number_format"
require_relative "../decision_text"
require_relative "../../stats/metrics"

module Rackbench
  module Report
    class Html
      # The page's headline: per endpoint at one concurrency level, which setup
      # served the most req/s, and the decision against the runner-up
      # (faster/slower, equivalent within the margin, or undecided with the
      # rounds it would take; Report::DecisionText).
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

        # The decision on req/s between the two (Stats::Decisions: paired
        # rounds, the run's margin, Holm over the family), in its own words.
        def versus(best, second)
          entry = @data.decisions.for_cell(best.endpoint, @level)
                       .find { |e| e.metric == "rps" && e.a == best.setup && e.b == second.setup }
          return "#{h(second.setup)} next <span class=\"muted\">(a decision needs 2 or more rounds of each: -r 3)</span>" unless entry

          "#{h(second.setup)}: #{h(DecisionText.phrase(entry))}"
        end
      end
    end
  end
end
