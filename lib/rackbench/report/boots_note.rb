# frozen_string_literal: true

module Rackbench
  module Report
    # How a run's boots were made, from setups.jsonl: which rounds booted
    # their setups side by side (--boot together: a boot's "neighbours"),
    # which apart, and whether address randomisation was off (--aslr off);
    # and from the trials (boots, as Store::Takes makes them) how many takes
    # each round's boots took (--per-boot), so every report says which
    # levers a run's decisions rest on.
    module BootsNote
      module_function

      # {"together_rounds" => [..], "apart_rounds" => [..], "aslr" => "on"|"off",
      #  "takes_per_boot" => {"round" => takes} (only for a run with takes)}
      def to_h(setup_rows, trials = [])
        boots = setup_rows.select { |s| s["status"] == "ok" && s["repetition"] && !s.key?("front") }
        rounds = boots.group_by { |s| s["repetition"].to_i }
        together = rounds.select { |_, rows| rows.any? { |r| Array(r["neighbours"]).any? } }.keys.sort
        takes = trials.each_with_object({}) { |t, by| (by[t["repetition"].to_i] ||= []) << t["takes"] if t["takes"] }
                      .sort.to_h { |rep, counts| [rep.to_s, counts.max] }
        { "together_rounds" => together, "apart_rounds" => rounds.keys.sort - together,
          "aslr" => boots.any? { |s| s["aslr"] == "off" } ? "off" : "on", **(takes.empty? ? {} : { "takes_per_boot" => takes }) }
      end

      # One line, or nil for a run that used none of the levers.
      def line(setup_rows, trials = [])
        h = to_h(setup_rows, trials)
        parts = []
        if (takes = h["takes_per_boot"])
          parts << takes.group_by { |_, k| k }.map { |k, reps| "#{k} take(s) per boot in round(s) #{spans(reps.map { |r, _| r.to_i })}" }
                        .join(", ")
        end
        if h["together_rounds"].any?
          parts << "round(s) #{spans(h['together_rounds'])} booted their setups side by side and measured them cell by " \
                   "cell (--boot together)#{h['apart_rounds'].any? ? "; round(s) #{spans(h['apart_rounds'])} apart" : ''}"
        end
        parts << "servers ran with address randomisation off (--aslr off)" if h["aslr"] == "off"
        parts.empty? ? nil : "Boots: #{parts.join('; ')}."
      end

      # [1, 2, 3, 5] -> "1-3, 5"
      def spans(numbers)
        numbers.slice_when { |a, b| b != a + 1 }.map { |run| run.size > 1 ? "#{run.first}-#{run.last}" : run.first.to_s }.join(", ")
      end
    end
  end
end
