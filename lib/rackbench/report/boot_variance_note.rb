# frozen_string_literal: true

require_relative "../stats/boot_variance"

module Rackbench
  module Report
    # The lines that say, per cell, how much of req/s's spread is between
    # boots and how much between takes of one boot (run --per-boot K:
    # Stats::BootVariance), and how many takes per boot would narrow the
    # interval most for the time. Nothing for a run of one take per boot.
    module BootVarianceNote
      module_function

      # cells: Stats::Cells; setups: setups.jsonl rows (boot_s); config: meta.json's.
      def lines(cells, setups:, config:)
        return [] unless cells.cells.any? { |c| c.records.any? { |t| t.key?("take_rps") } } # no takes: no cell decoded for it

        found = Stats::BootVariance.of(cells.cells, Stats::BootVariance.costs(setups, config || {}))
        return [] if found.empty?

        ["Variance of req/s between boots and between takes of one boot (--per-boot; Kalibera & Jones: takes per boot " \
         "that narrow the interval most for the time):"] +
          found.map do |v|
            best = if v.between_pct.zero?
                     "more takes per boot (up to #{Stats::BootVariance::MAX_TAKES}): these boots added no spread beyond the takes'"
                   elsif v.best_takes == 1
                     "1 take per boot (boots vary most: buy boots)"
                   else
                     "#{v.best_takes} takes per boot"
                   end
            "  #{v.endpoint} #{cells.level_label(v.level)} #{v.setup}: between boots #{format('%.1f', v.between_pct)}%, " \
              "between takes #{format('%.1f', v.within_pct)}% (#{v.boots} boots x #{format('%g', v.takes)} takes) -> #{best}"
          end
      end
    end
  end
end
