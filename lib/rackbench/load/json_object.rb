# frozen_string_literal: true

require "json"
require_relative "../error"

module Rackbench
  module Load
    # The one JSON object a load tool printed for rackbench (wrk's Lua
    # scripts' lines, siege's -j statistics), as a Hash, or an Error in one
    # line that names it.
    module JsonObject
      module_function

      # text: the object as the tool printed it, nil when it printed none;
      # missing: the message then; what: how the other errors name the
      # object ("siege's statistics", "wrk's RACKBENCH_RESULT line").
      def parse(text, what:, missing:)
        raise Error, missing unless text

        json = JSON.parse(text)
        raise Error, "#{what} is not a JSON object: #{text[0, 80]}" unless json.is_a?(Hash)

        json
      rescue JSON::ParserError
        raise Error, "#{what} is garbled JSON: #{text[0, 80].inspect}"
      end
    end
  end
end
