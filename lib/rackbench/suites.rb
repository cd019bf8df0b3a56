# frozen_string_literal: true

require "etc"
require_relative "error"
require_relative "suggest"
require_relative "plan/config"
require_relative "workload/arena"
require_relative "suites/pavese"
require_relative "suites/arena"
require_relative "suites/finc"
require_relative "suites/jruby"
require_relative "suites/nginx"
require_relative "suites/field2026"

module Rackbench
  # Built-in suites: each reproduces one published benchmark study (a "seed"),
  # scaled to this machine's cores (N), with a quick variant that finishes in
  # a few minutes on 2 cores.
  #
  # A suite is a module answering
  #   SEED, TITLE                 the study it reproduces (SEED nil: a comparison no seed made)
  #   summary                     one line for `rackbench suites`
  #   description(cores)          what it runs and why (`rackbench suites NAME`)
  #   settings(cores:, quick:)    Config keys, the same as a plan file's keywords
  #   findings(view)              the study's conclusions from stored trials (Findings::View)
  #
  # `rackbench run --suite NAME` layers: defaults < suite < plan file < command line.
  module Suites
    ALL = { "pavese" => Pavese, "arena" => Arena, "finc" => Finc, "jruby" => Jruby, "nginx" => Nginx,
            "field-2026" => Field2026 }.freeze
    # Seconds a run spends per server boot beyond load (boot, readiness, verification, stop).
    BOOT_S = 4.0
    # Seconds per trial beyond its duration (spawning wrk, sampling, storing).
    TRIAL_OVERHEAD_S = 0.3
    # Seconds per setup and endpoint to verify its first responses.
    VERIFY_S = 1.0

    module_function

    def names
      ALL.keys
    end

    def fetch(name)
      Suggest.fetch(ALL, name, "suite", after: " (rackbench suites lists them)")
    end

    def settings(name, cores: Etc.nprocessors, quick: false)
      fetch(name).settings(cores: cores, quick: quick)
    end

    # A rough wall time for a suite's settings: load, warm-ups, cool-downs
    # and a few seconds per server boot, times the repetitions.
    def estimate_s(settings)
      cfg = Config::DEFAULTS.merge(settings)
      endpoints = cfg[:endpoints]
      levels = cfg[:concurrency].size
      heavy = endpoints.count { |e| Workload::Arena.cpu_heavy?(e) }
      warmup = cfg[:warmup] == "steady" ? cfg[:warmup_max] / 2.0 : cfg[:warmup] # steady: guessed at half its cap
      per_setup = BOOT_S + (endpoints.size * (warmup + VERIFY_S)) +
                  (endpoints.size * levels * (cfg[:duration] + TRIAL_OVERHEAD_S)) + (heavy * levels * cfg[:cooldown])
      cfg[:setups].size * per_setup * cfg[:repeat]
    end

    def duration_text(seconds)
      return "#{seconds.round} s" if seconds < 90
      return "#{(seconds / 60.0).round} min" if seconds < 90 * 60

      format("%.1f h", seconds / 3600.0)
    end
  end
end
