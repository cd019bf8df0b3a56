# frozen_string_literal: true

require "etc"
require_relative "../../error"
require_relative "../settings"

module Rackbench
  module Config
    # rackbench tune's search space, a member of the run's settings
    # (`space`; nil: not a tune): the servers to try, the memory budget
    # (MiB of PSS), the SLO (p99 in ms, errors in %), the time budget (s),
    # the workers' cap, each server's thread ladder, whether round 1 goes
    # nearest the prediction first, and the cores the search plans for. One
    # frozen value like the settings it sits in; a tune step changes it
    # with `with`.
    Space = Settings[%i[servers memory_budget slo_p99 max_errors time_budget max_workers ladders predict cores]]

    module Rules
      # The space as given (tune's options, or meta.json's dump) made a
      # Config::Space: its keys checked, the budget and the SLO required
      # (there is no default objective: an acceptable p99 depends on the
      # workload), the cores this machine's unless stored. Its servers are
      # settled against the app by Settle::Space (nil here: the default list).
      module Space
        ORDER = 5 # Config::RULES runs the rules by ORDER (plan/config.rb): first, as the options it needs were checked first
        DEFAULTS = { servers: nil, memory_budget: nil, slo_p99: nil, max_errors: 0.1, time_budget: 600.0,
                     max_workers: nil, ladders: {}, predict: true, cores: nil }.freeze

        module_function

        def check(cfg)
          given = cfg[:space]
          return nil if given.nil? || given.is_a?(Config::Space)

          space = given.to_h.transform_keys(&:to_sym)
          unknown = space.keys - DEFAULTS.keys
          raise UsageError, "unknown tune setting #{unknown.first}" unless unknown.empty?
          raise UsageError, "give the memory the app may use with --memory-budget, e.g. --memory-budget 2GiB" unless space[:memory_budget]
          # No default objective: what p99 is acceptable depends on the
          # workload (the arena's /random sleeps 1 s on a fifth of its requests).
          raise UsageError, "give the latency objective with --slo-p99, e.g. --slo-p99 300ms (or 3s for /random)" unless space[:slo_p99]

          values = DEFAULTS.merge(space.compact)
          { space: Config::Space.new(values.merge(cores: values[:cores] || Etc.nprocessors, ladders: values[:ladders].to_h.freeze)) }
        end
      end
    end
  end
end
