# frozen_string_literal: true

require_relative "../sampling/noise"

module Rackbench
  module Report
    # What the terminal table says about how quiet the measurements were:
    # "~" on a cell measured while other processes used more than
    # Sampling::Noise::QUIET_PCT of a core (a trial's machine.foreign_pct),
    # and whether server and load generator shared cores (--cpus).
    module QuietNotes
      FLAG = " ~"

      module_function

      # Above the trial's own limit, which grows with the cores (Sampling::Noise.foreign?).
      def foreign?(trial)
        Sampling::Noise.foreign?(trial)
      end

      # The cell's flag ("" when every trial was quiet or not measured).
      def flag(trials)
        trials.any? { |t| foreign?(t) } ? FLAG : ""
      end

      # A Stats::Cells cell with a trial measured under foreign load.
      def foreign_cell?(cell)
        cell.records.any? { |t| foreign?(t) }
      end

      def lines(trials)
        out = []
        # The trials under foreign load: how many, the most foreign % and
        # the highest limit among them (not the trials: a report's are read
        # a field at a time, Store::PackedTrials).
        busy = 0
        worst = limit = nil
        trials.each do |t|
          next unless foreign?(t)

          busy += 1
          worst = [worst, t.dig("machine", "foreign_pct")].compact.max
          limit = [limit, Sampling::Noise.foreign_limit(t)].compact.max
        end
        if busy.positive?
          bound = limit > Sampling::Noise::QUIET_PCT ? " plus the measurement's error bound (a limit of up to #{limit.round}% here)" : ""
          out << "~ = measured under foreign load: other processes used more than #{Sampling::Noise::QUIET_PCT.round}% of " \
                 "a core#{bound} (#{busy} of #{trials.size} trial(s), up to #{worst.round}%); quiet the machine and measure again"
        end
        out << cores_line(trials)
        out.compact
      end

      def cores_line(trials)
        s = nil # the first trial's cpus
        shared = trials.any? { |t| (cpus = t["cpus"]) && (s ||= cpus) && cpus["shared"] }
        return nil if s.nil?

        if shared
          "Server and load generator shared the machine's cores (no --cpus): each took CPU from the other; " \
            "separate them with --cpus auto"
        else
          "Server on CPU #{s['server']}, load generator on CPU #{s['client']} (--cpus; #{s['rule']})."
        end
      end
    end
  end
end
