# frozen_string_literal: true

require_relative "escape"
require_relative "../speedscope"
require_relative "../../stats/attribution_text"

module Rackbench
  module Report
    class Html
      # One decided pair's differential flame graph (run --profile), an
      # inline SVG: B's stacks (Stats::FrameStacks, merged over its profiled
      # rounds) as an icicle, the callers above their callees, each frame as
      # wide as B's samples in it, and coloured by its own self time's change
      # per request against A, as the pair's Stats::Attribution decided it:
      # red grew, blue shrank (a discovery at the 5% false discovery rate),
      # grey within noise or not tested (under Attribution::MIN_SHARE).
      # Hover: the frame, its share of B's samples and its change, in the
      # attribution's words. A frame that shrank out of B's graph (gone, or
      # under MIN_SHARE of its samples) is listed under it.
      #
      # Bounded: only frames of at least MIN_SHARE of B's samples, at most
      # MAX_NODES of them (breadth first, the widest first), MAX_DEPTH deep,
      # so the page of a 100,000-cell run holds a few KB a graph, not its
      # stacks. Every label is escaped (Escape#h): frame names come from
      # the app under test.
      class FlameGraph
        include Escape

        MIN_SHARE = 0.005
        MAX_NODES = 400
        MAX_DEPTH = 60
        WIDTH = 1200
        ROW = 16
        CHAR = 6.6 # px per character of the 11 px labels
        COLOURS = { "grew" => "#d64541", "shrank" => "#3a74c4", "same" => "#cfd3d8" }.freeze

        Node = Struct.new(:frame, :samples, :children, :depth, :x)

        # attribution: a Stats::Attribution; stacks: B's Stats::FrameStacks.
        def initialize(attribution, stacks)
          @attribution = attribution
          @stacks = stacks
          @changes = attribution.named.to_h { |c| [[c.name, c.file.to_s], c] }
        end

        def render
          nodes = layout
          height = ((nodes.map(&:depth).max || 0) + 1) * ROW
          "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" viewBox=\"0 0 #{WIDTH} #{height}\" width=\"100%\" " \
            "role=\"img\" aria-label=\"#{h(caption)}\" font-family=\"ui-monospace, Menlo, Consolas, monospace\" font-size=\"11\">" \
            "#{nodes.map { |n| cell(n) }.join}</svg>#{gone(nodes)}"
        end

        def caption
          "#{@attribution.entry.b} against #{@attribution.entry.a}: #{@stacks.samples} samples of #{@attribution.entry.b} " \
            "over #{@stacks.rounds} rounds"
        end

        # The frame's kind: "grew", "shrank" or "same".
        def kind(frame)
          change = @changes[frame] or return "same"
          change.change.positive? ? "grew" : "shrank"
        end

        private

        # The kept nodes, each with its depth and x (in samples), breadth first.
        def layout
          root = tree
          @total = root.samples.to_f
          floor = MIN_SHARE * root.samples
          kept = []
          level = [root]
          (0...MAX_DEPTH).each do |depth|
            level = level.flat_map { |parent| place(parent, floor) }.sort_by { |n| [-n.samples, n.x] }
            level = level.first(MAX_NODES - kept.size)
            level.each { |n| n.depth = depth }
            kept.concat(level)
            break if level.empty?
          end
          kept.sort_by { |n| [n.depth, n.x] }
        end

        # A parent's children of at least floor samples, left to right by label.
        def place(parent, floor)
          x = parent.x
          parent.children.values.sort_by { |n| Speedscope.label(*@stacks.frames[n.frame]) }.filter_map do |child|
            child.x = x
            x += child.samples
            child if child.samples >= floor
          end
        end

        def tree
          root = Node.new(nil, 0, {}, -1, 0)
          @stacks.stacks.each do |path, n|
            root.samples += n
            path.reduce(root) do |node, frame|
              (node.children[frame] ||= Node.new(frame, 0, {}, nil, 0)).tap { |child| child.samples += n }
            end
          end
          root
        end

        def cell(node)
          frame = @stacks.frames[node.frame]
          x = (node.x / @total * WIDTH).round(2)
          w = (node.samples / @total * WIDTH).round(2)
          y = node.depth * ROW
          k = kind(frame)
          label = Speedscope.label(*frame)
          text = w >= 3 * CHAR ? "<text x=\"#{(x + 3).round(2)}\" y=\"#{y + 12}\">#{h(fit(label, w))}</text>" : ""
          "<g class=\"#{k}\"><title>#{h(title(frame, label, node))}</title><rect x=\"#{x}\" y=\"#{y}\" width=\"#{w}\" " \
            "height=\"#{ROW - 1}\" fill=\"#{COLOURS.fetch(k)}\"/>#{text}</g>"
        end

        def title(frame, label, node)
          share = format("%.1f%%", 100 * node.samples / @total)
          change = @changes[frame]
          said = change ? "self time #{Stats::AttributionText.frame(change).sub(" in #{label}", '')}" : "self time per request within noise"
          "#{label}: #{share} of #{@attribution.entry.b}'s samples (#{node.samples}); #{said}"
        end

        def fit(label, width)
          room = (width / CHAR).floor - 1
          label.size <= room ? label : "#{label[0, [room - 1, 1].max]}…"
        end

        # The decided changes whose frame the graph does not show.
        def gone(nodes)
          shown = nodes.to_h { |n| [@stacks.frames[n.frame], true] }
          left = @attribution.named.reject { |c| shown[[c.name, c.file.to_s]] }
          return "" if left.empty?

          "<p class=\"note\">Not in #{h(@attribution.entry.b)}'s graph (gone, or under #{(MIN_SHARE * 100).round(1)}% of its samples): " \
            "#{left.map { |c| h(Stats::AttributionText.frame(c)) }.join('; ')}</p>"
        end
      end
    end
  end
end
