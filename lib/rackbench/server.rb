# frozen_string_literal: true

require_relative "server/puma"
require_relative "server/unicorn"
require_relative "server/thin"
require_relative "server/passenger"
require_relative "server/instance"

module Rackbench
  # The server adapters rackbench knows, by key.
  module Server
    ADAPTERS = {
      "puma" => Puma, "unicorn" => Unicorn, "thin" => Thin, "passenger" => Passenger
    }.freeze

    module_function

    def adapter(key)
      klass = ADAPTERS.fetch(key) do
        raise UsageError, "unknown server #{key.inspect}#{Suggest.did_you_mean(key, ADAPTERS.keys)}; " \
                          "accepted: #{ADAPTERS.keys.join(', ')}"
      end
      klass.new
    end

    def all
      ADAPTERS.values.map(&:new)
    end
  end
end
