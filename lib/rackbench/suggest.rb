# frozen_string_literal: true

require "did_you_mean"
require_relative "error"

module Rackbench
  # "Did you mean ...?" hints for misspelt names in messages.
  module Suggest
    module_function

    # Returns " (did you mean \"puma\"?)" or "" when nothing is close.
    # DidYouMean's spell checker finds nothing for very short words ("rn"
    # for "run"); then the one candidate a single edit away (Levenshtein
    # distance 1) is offered, if exactly one is.
    def did_you_mean(word, candidates)
      names = candidates.map(&:to_s)
      found = DidYouMean::SpellChecker.new(dictionary: names).correct(word.to_s)
      if found.empty?
        near = names.select { |n| DidYouMean::Levenshtein.distance(n, word.to_s) == 1 }
        found = near if near.size == 1
      end
      found.empty? ? "" : " (did you mean #{found.first.inspect}?)"
    end

    # table[name] from a table of named things (servers, engines, suites);
    # an unknown name is a UsageError with the closest name and the accepted
    # ones, then after (e.g. where they are listed).
    def fetch(table, name, what, after: "")
      table.fetch(name.to_s) do
        raise UsageError, "unknown #{what} #{name.to_s.inspect}#{did_you_mean(name, table.keys)}; " \
                          "accepted: #{table.keys.join(', ')}#{after}"
      end
    end
  end
end
