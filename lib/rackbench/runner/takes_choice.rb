# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/boot_variance"
require_relative "../plan/config"

module Rackbench
  class Runner
    # run --per-boot auto: after the pilot rounds (Plan::PILOT_ROUNDS rounds
    # of Config::PILOT_TAKES takes per boot), the takes per boot of every later
    # round, chosen from the pilots' own variance.
    #
    # Method: Stats::BootVariance splits each cell's log req/s between boots
    # and takes of a boot and gives Kalibera & Jones's best takes per boot
    # for it, from what a boot and a take cost in this run (setups.jsonl's
    # boot_s, the warm-up, the duration and cool-down). One K serves every
    # cell of a round (a boot measures them all): the median of the cells'
    # best takes, rounded up, at most MAX. Limits: two pilot boots per setup
    # make each cell's split uncertain (a factor of 2 either way is common),
    # so K is a direction measured on this run, not a constant; the median
    # keeps one odd cell from setting it.
    module TakesChoice
      MAX = 5
      Choice = Struct.new(:takes, :cells, :reason, keyword_init: true)

      module_function

      # store: the run's Store::RunDir (trials as boots, setups); config: the run's.
      # Only the pilot rounds count, so a resumed run chooses the same K
      # however many later rounds it had stored.
      def call(store, config)
        pilot = ->(r) { r["repetition"].to_i <= Config::PILOT_ROUNDS }
        cells = Stats::Cells.new(store.trials.select { |t| t["rps"] && pilot.call(t) })
        found = Stats::BootVariance.of(cells.cells, Stats::BootVariance.costs(store.setups.select(&pilot), config))
        return Choice.new(takes: Config::PILOT_TAKES, cells: 0, reason: "no cell had 2 boots of 2 takes to split") if found.empty?

        bests = found.map(&:best_takes).sort
        mid = bests.size.odd? ? [bests[bests.size / 2]] : bests[bests.size / 2 - 1, 2]
        takes = mid.sum.fdiv(mid.size).ceil.clamp(1, MAX)
        Choice.new(takes: takes, cells: found.size,
                   reason: "the median of #{found.size} cell(s)' best takes per boot (#{bests.join(', ')}), " \
                           "at most #{MAX}")
      end
    end
  end
end
