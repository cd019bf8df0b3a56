# frozen_string_literal: true

require "did_you_mean"

module Rackbench
  # "Did you mean ...?" hints for misspelt names in messages.
  module Suggest
    module_function

    # Returns " (did you mean \"puma\"?)" or "" when nothing is close.
    def did_you_mean(word, candidates)
      found = DidYouMean::SpellChecker.new(dictionary: candidates.map(&:to_s)).correct(word.to_s)
      found.empty? ? "" : " (did you mean #{found.first.inspect}?)"
    end
  end
end
