# frozen_string_literal: true

module Rackbench
  # The ref gate's unit tests: one setup at two refs, and stored trials of
  # /work at c=2 with the given req/s per round for BASE and HEAD.
  module RefGateTrials
    GROUPS = [["puma x2:5", %w[main@1a2b3c4 HEAD@5d6e7f8]]].freeze

    def trials(base, head)
      [["main@1a2b3c4", base], ["HEAD@5d6e7f8", head]].flat_map do |label, values|
        values.each_with_index.map do |rps, i|
          { "endpoint" => "/work", "setup" => label, "concurrency" => 2, "repetition" => i + 1, "rps" => rps,
            "duration_s" => 2.0, "loop" => "closed" }
        end
      end
    end
  end
end
