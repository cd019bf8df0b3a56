# frozen_string_literal: true

require_relative "../error"
require_relative "../suggest"

module Rackbench
  # The load engines rackbench knows, by name. Each engine's file registers
  # it with what the rest of rackbench asks of it beyond the engine contract
  # (lib/rackbench/load.rb):
  #
  #   process   the program's file name: the sampler counts its live
  #             processes as the "client" role (nil: it runs none)
  #   loop      "closed" (takes --concurrency) or "open" (takes --rate)
  #   scenario  loads a weighted mix of paths (--scenario)
  #
  # lib/rackbench/load.rb loads every file of load/, so a new engine is one
  # new file there (docs/architecture.md).
  module Load
    Registration = Struct.new(:name, :order, :process, :loop, :scenario, :factory, keyword_init: true)
    ENGINES = {} # name => Registration, in the order engines are listed

    module_function

    # order: where the engine is listed (accepted names), lowest first.
    def register(name, order:, process:, loop: "closed", scenario: false, &factory)
      ENGINES[name] = Registration.new(name: name, order: order, process: process, loop: loop, scenario: scenario,
                                       factory: factory)
      ENGINES.replace(ENGINES.sort_by { |_, r| r.order }.to_h)
    end

    def names
      ENGINES.keys
    end

    def registration(name)
      Suggest.fetch(ENGINES, name, "load engine")
    end

    def engine(name)
      registration(name).factory.call
    end

    # The programs whose processes are load generators (the sampler's "client").
    def processes
      ENGINES.values.filter_map(&:process).uniq
    end

    def open_loop?(name)
      ENGINES[name.to_s]&.loop == "open"
    end

    def scenario?(name)
      ENGINES[name.to_s]&.scenario ? true : false
    end
  end
end
