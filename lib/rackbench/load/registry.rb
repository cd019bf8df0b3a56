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
  #   protocol  what it speaks: "http/1.1" (HTTP/1.x), or "h2c" (HTTP/2 in
  #             cleartext with prior knowledge: Config refuses setups whose
  #             server does not serve it, Server::Base.protocols)
  #   no_rate   a closed-loop engine's reason to refuse --rate although its
  #             program has a rate option (Config says it with the refusal)
  #   note      a few words beside its name in --engine's help ("with --rate")
  #   listed    false: not offered in help (the fake engine of the tests)
  #   default   true: the engine of its loop that rackbench picks itself: a
  #             plan's default engine (closed), and what capacity and tune
  #             drive both their loops with (Load.default)
  #   synthetic true: its latency figures include samples it made up for
  #             slow responses (wrk), so a mean above Little's law is an
  #             artifact of the engine (Stats::Validity)
  #   loads     false: it sends no load at all (the fake): no busy-machine
  #             check before a run
  #
  # lib/rackbench/load.rb loads every file of load/, so a new engine is one
  # new file there (docs/architecture.md).
  module Load
    Registration = Struct.new(:name, :order, :process, :loop, :scenario, :protocol, :no_rate, :note, :listed, :default,
                              :synthetic, :loads, :factory, keyword_init: true)
    ENGINES = {} # name => Registration, in the order engines are listed

    module_function

    # order: where the engine is listed (accepted names), lowest first.
    def register(name, order:, process:, loop: "closed", scenario: false, protocol: "http/1.1", no_rate: nil, note: nil,
                 listed: true, default: false, synthetic: false, loads: true, &factory)
      ENGINES[name] = Registration.new(name: name, order: order, process: process, loop: loop, scenario: scenario,
                                       protocol: protocol, no_rate: no_rate, note: note, listed: listed, default: default,
                                       synthetic: synthetic, loads: loads, factory: factory)
      ENGINES.replace(ENGINES.sort_by { |_, r| r.order }.to_h)
    end

    def names
      ENGINES.keys
    end

    # --engine's help: every listed engine, with its note.
    def help
      ENGINES.values.select(&:listed).map { |r| r.note ? "#{r.name} (#{r.note})" : r.name }.join(", ")
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

    # The name of the engine rackbench picks itself for loop ("closed" or
    # "open"): the one registered default: true.
    def default_name(loop = "closed")
      ENGINES.values.find { |r| r.default && r.loop == loop }&.name or raise Error, "no default #{loop}-loop load engine is registered"
    end

    def default(loop = "closed")
      engine(default_name(loop))
    end

    # The default engine, or the one line saying it is missing (its
    # NOT_FOUND): what capacity and tune check before anything boots.
    def require_default!(loop = "closed")
      engine = default(loop)
      return engine if engine.available?

      raise Error, engine.class.const_defined?(:NOT_FOUND) ? engine.class::NOT_FOUND : "#{engine.name} is not installed: run bin/setup"
    end

    # Does name's latency include samples the engine made up (wrk)?
    def synthetic?(name)
      ENGINES[name.to_s]&.synthetic ? true : false
    end

    # Does name send load (false only for the fake engine of the tests)?
    def loads?(name)
      ENGINES.fetch(name.to_s) { return true }.loads
    end

    def open_loop?(name)
      ENGINES[name.to_s]&.loop == "open"
    end

    def scenario?(name)
      ENGINES[name.to_s]&.scenario ? true : false
    end

    # {program => the engines that run it}, in the order engines are listed:
    # what `rackbench servers` and `doctor` say is installed.
    def programs
      ENGINES.values.select(&:process).group_by(&:process).transform_values { |regs| regs.map(&:name) }
    end

    # "http/1.1" or "h2c" (unknown names: "http/1.1").
    def protocol(name)
      ENGINES[name.to_s]&.protocol || "http/1.1"
    end
  end
end
