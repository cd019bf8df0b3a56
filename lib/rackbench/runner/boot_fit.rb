# frozen_string_literal: true

require_relative "../system/memory"

module Rackbench
  class Runner
    # run --boot together: do a round's setups fit side by side in memory?
    # Measured, not guessed: a setup's footprint is the largest whole-tree
    # PSS (memory.pss_total_max_mb) any of its stored trials recorded in this
    # run; round 1 always boots apart, so each setup has been measured alone
    # before it shares a round. The round fits when the sum of its setups'
    # footprints, times HEADROOM (a footprint measured at one endpoint can
    # grow at another; the load generator needs room too), is at most the
    # machine's MemAvailable read just before the round. A setup with no
    # measured footprint yet (it failed, or round 1 is still to come) means
    # apart.
    module BootFit
      HEADROOM = 2.0
      Fit = Struct.new(:together, :need_mb, :available_mb, :reason, keyword_init: true)

      module_function

      # trials: the run's stored trial records; labels: the round's setups.
      def call(trials, labels, available_bytes: System::Memory.available)
        footprint = labels.to_h do |label|
          [label, trials.select { |t| t["setup"] == label }.filter_map { |t| t.dig("memory", "pss_total_max_mb") }.max]
        end
        unmeasured = footprint.select { |_, mb| mb.nil? }.keys
        return Fit.new(together: false, reason: "no footprint measured yet for #{unmeasured.join(', ')}") if unmeasured.any?
        return Fit.new(together: false, reason: "MemAvailable unreadable") if available_bytes.nil?

        need = footprint.values.sum * HEADROOM
        available = available_bytes / 1024.0 / 1024
        Fit.new(together: need <= available, need_mb: need.round, available_mb: available.round,
                reason: "#{HEADROOM}x their measured footprint #{footprint.values.sum.round} MiB " \
                        "#{need <= available ? 'fits in' : 'exceeds'} #{available.round} MiB available")
      end
    end
  end
end
