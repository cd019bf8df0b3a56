# frozen_string_literal: true

require_relative "escape"
require_relative "flame_graph"

module Rackbench
  module Report
    class Html
      # The page's "Where the time went" section (run --profile): a
      # differential flame graph (FlameGraph) for each decided pair with an
      # attribution (Dataset#attributions) whose B side has stacks
      # (Dataset#frame_stacks), the first MAX_GRAPHS of them (each is a few
      # KB: a 100,000-cell run's page stays bounded; the rest are in the
      # JSON report's attributions and the speedscope file).
      class FlameGraphs
        include Escape

        MAX_GRAPHS = 12

        def initialize(dataset)
          @data = dataset
        end

        # [attribution, B's stacks] of each pair drawn.
        def pairs
          @pairs ||= @data.attributions.filter_map do |(endpoint, level, _a, b), attribution|
            stacks = @data.frame_stacks[[endpoint, level, b]]
            [attribution, stacks] if stacks
          end
        end

        def any? = pairs.any?

        # The section's content, a piece at a time (a graph each).
        def each_piece
          yield "<p class=\"note\">Each decided pair's B side as a flame graph: callers above callees, each frame as wide as " \
                "B's CPU samples in it; <b style=\"color:#{FlameGraph::COLOURS['grew']}\">red</b>: its self time per request grew " \
                "against A, <b style=\"color:#{FlameGraph::COLOURS['shrank']}\">blue</b>: it shrank (each a discovery at a 5% false " \
                "discovery rate), grey: within noise or under 0.5% of the CPU. Hover a frame for its change. Each side's whole " \
                "profile opens in speedscope: speedscope.json in the run directory.</p>"
          pairs.first(MAX_GRAPHS).each do |attribution, stacks|
            graph = FlameGraph.new(attribution, stacks)
            entry = attribution.entry
            yield "<figure class=\"flame\"><figcaption><code>#{h(entry.endpoint)}</code> #{h(stacks.level_label)}: " \
                  "#{h(graph.caption)}</figcaption>#{graph.render}</figure>"
          end
          more = pairs.size - MAX_GRAPHS
          yield "<p class=\"note\">#{more} more pair(s) not drawn: their frames are in the JSON report's attributions.</p>" if more.positive?
        end
      end
    end
  end
end
