# frozen_string_literal: true

require_relative "../error"
require_relative "../suggest"

module Rackbench
  # The server adapters rackbench knows, by key. Each adapter file registers
  # its class (Base.register); lib/rackbench/server.rb loads every file of
  # server/, so a new server is one new file there (docs/architecture.md).
  module Server
    ADAPTERS = {} # key => adapter class, in the order servers are listed

    module_function

    # Listed by the adapter's order (rackbench servers, default setups,
    # accepted names), lowest first.
    def register(klass)
      ADAPTERS[klass::KEY] = klass
      ADAPTERS.replace(ADAPTERS.sort_by { |_, k| k.order }.to_h)
    end

    def keys
      ADAPTERS.keys
    end

    # The servers tune tries when --servers is not given: those registered
    # with tune_default: true, in their order.
    def tune_defaults
      ADAPTERS.values.select(&:tune_default?).map(&:key)
    end

    # The adapter class: its facts are class methods (Base).
    def adapter_class(key)
      Suggest.fetch(ADAPTERS, key, "server")
    end

    # runtime: the setup's ("jruby": the adapter registered for it, e.g.
    # PumaJruby; Setup refuses a runtime the server has none for).
    def adapter(key, app: nil, runtime: nil)
      klass = adapter_class(key)
      (klass.runtime_adapters[runtime] || klass).new(app: app)
    end

    # The servers that run on runtime ("jruby"), by key.
    def on_runtime(runtime)
      ADAPTERS.values.select { |klass| klass.runtime_adapters.key?(runtime) }.map(&:key)
    end

    def all(app: nil)
      ADAPTERS.values.map { |klass| klass.new(app: app) }
    end
  end
end
