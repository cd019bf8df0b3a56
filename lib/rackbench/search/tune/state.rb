# frozen_string_literal: true

module Rackbench
  module Search
    class Tune
      # What tune's round objects share: where they measure (lab), where
      # they log (journal), the time left (deadline), what they judge by
      # (slo, the equivalence margin of the decisions) and how they order
      # rounds (seed). Each round takes this and returns its own result;
      # the one thing a round may change here is why tune stopped early
      # (the first reason given is kept).
      State = Struct.new(:lab, :journal, :deadline, :slo, :endpoint, :margin, :seed, :say, :stopped, keyword_init: true) do
        def stop!(why)
          self.stopped ||= why
          true
        end
      end
    end
  end
end
