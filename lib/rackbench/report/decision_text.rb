# frozen_string_literal: true

require_relative "../stats/decision_text"

module Rackbench
  module Report
    # The decisions' words (Stats::DecisionText), under the name the
    # renderers use.
    DecisionText = Stats::DecisionText
  end
end
