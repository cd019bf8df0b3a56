# frozen_string_literal: true

require_relative "racing"

module Rackbench
  module Search
    class Tune
      # What rounds 1 and 2 say while they run ("round 1/3: 4 setups left to
      # probe, leader ...") and the line each logs of its decisions
      # (tune.jsonl's "round"), over the shared State.
      class RoundLog
        # "1 setup", "3 setups".
        def self.setups(count)
          "#{count} setup#{count == 1 ? '' : 's'}"
        end

        # entries: the round's (its leader is the best alive one); band: the noise band it judged by.
        def initialize(state, round, entries:, band:)
          @s = state
          @round = round
          @entries = entries
          @band = band
        end

        # [label, value] of the alive entry best by metric (nil when none has it).
        def leader_by(metric)
          best = @entries.select(&:alive?).select(&metric).max_by(&metric)
          best && [best.label, best.public_send(metric)]
        end

        def progress(text, leader, done: false)
          lead = leader ? ", leader #{leader[0]} (~#{Racing.rps(leader[1])} req/s)" : ""
          @s.say.call("round #{@round}/#{Tune::ROUNDS}#{done ? ' done' : ''}: #{text}#{lead}")
        end

        # decisions: Racing::Decision of every entry the round judged; method: how it judged.
        def decisions(decisions, method)
          @s.journal.log("type" => "round", "round" => @round, "method" => method, "noise_band" => @band.reference.round(4),
                         "elapsed_s" => @s.deadline.elapsed.round(1),
                         "decisions" => decisions.map { |d| d.entry.to_row.merge("keep" => d.keep, "reason" => d.reason) })
        end
      end
    end
  end
end
