# frozen_string_literal: true

require_relative "server/puma"
require_relative "server/unicorn"
require_relative "server/thin"
require_relative "server/passenger"
require_relative "server/falcon"
require_relative "server/pitchfork"
require_relative "process/server_instance"

module Rackbench
  # The server adapters rackbench knows, by key.
  module Server
    ADAPTERS = {
      "puma" => Puma, "unicorn" => Unicorn, "thin" => Thin, "passenger" => Passenger,
      "falcon" => Falcon, "pitchfork" => Pitchfork
    }.freeze

    module_function

    def adapter(key, app: nil)
      klass = ADAPTERS.fetch(key) do
        raise UsageError, "unknown server #{key.inspect}#{Suggest.did_you_mean(key, ADAPTERS.keys)}; " \
                          "accepted: #{ADAPTERS.keys.join(', ')}"
      end
      klass.new(app: app)
    end

    def all(app: nil)
      ADAPTERS.values.map { |klass| klass.new(app: app) }
    end
  end
end
