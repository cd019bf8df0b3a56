# frozen_string_literal: true

module Rackbench
  module Search
    class Tune
      # Round 3 of Tune: the finalists run CONFIRM_REPEAT times at the leader's
      # knee on a fresh boot each, in the longest window the time left allows
      # (once more at RETRY_FACTOR of it when none holds), and are ranked by
      # Racing.rank (Welch's t-test). Included in Tune.
      module ConfirmRound
        private

        def round3(finalists)
          rate = finalists.first&.knee_rps
          return if rate.nil?

          finalists = finalists.first(2) if confirm_window(finalists.size, rate).nil?
          window = confirm_window(finalists.size, rate)
          unless window
            stop!("time budget")
            @journal.log("type" => "round", "round" => 3, "skipped" => "the time budget ran out before the confirmation runs")
            return
          end
          @rate = rate
          @window = window
          confirm(finalists, rate, window)
          unless finalists.any? { |e| Racing.confirmation(e.confirms, @slo)["holds"] }
            retry_rate = (rate * RETRY_FACTOR).round(1)
            if @deadline.allows?(finalists.sum { @lab.confirm_cost(CONFIRM_REPEAT, window) })
              @say.call("round 3/3: no finalist held the SLO at #{Racing.rps(rate)} req/s over #{window} s; once more at #{Racing.rps(retry_rate)} req/s")
              @rate = retry_rate
              confirm(finalists, retry_rate, window)
            end
          end
          @ranked = Racing.rank(finalists.select { |e| e.confirms.any? }, @slo)
          log_round(3, @ranked.each_with_index.map { |e, i| Racing::Decision.new(entry: e, keep: i.zero?, reason: confirm_reason(e, i)) },
                    "#{CONFIRM_REPEAT} runs of #{window} s at #{Racing.rps(@rate)} req/s (the leader's knee); #{Stats::Welch::METHOD}")
          @say.call("round 3/#{ROUNDS} done: winner #{@ranked.first&.label || '-'}")
        end

        def confirm(finalists, rate, window)
          @lab.expect(finalists.size * CONFIRM_REPEAT)
          finalists.each_with_index do |e, i|
            o = @lab.confirm(e.setup, rate: rate, repeat: CONFIRM_REPEAT, duration: window, expected_latency: expected_latency(e))
            e.confirms = o.records
            e.add(o.records)
            stop!("time budget") if o.stopped
            held = Racing.confirmation(e.confirms, @slo)
            @say.call("round 3/#{ROUNDS}: #{e.label} held the SLO in #{held['passes']}/#{held['n']} runs at #{Racing.rps(rate)} req/s; " \
                      "#{finalists.size - i - 1} left")
          end
        end

        def confirm_reason(entry, index)
          c = Racing.confirmation(entry.confirms, @slo)
          head = index.zero? ? "winner" : "##{index + 1}"
          verdict = c["holds"] ? "holds the SLO" : "does not hold the SLO (#{c['failures'].first})"
          "#{head}: #{verdict} in #{c['passes']}/#{c['n']} runs; #{Racing.rps(c.dig('rps', 'mean'))} req/s, " \
            "p99 #{c.dig('p99_ms', 'median')&.round} ms"
        end

        # The longest window (a whole-second wrk run less the drain) that lets
        # every finalist run CONFIRM_REPEAT times within the time left: at most
        # CONFIRM_RUN seconds, or what a low rate needs to plan enough requests
        # (Lab#min_run).
        def confirm_window(count, rate)
          per = @deadline.left / count - @lab.boot_cost
          run = ((per / CONFIRM_REPEAT) - Lab::STEP_OVERHEAD).floor.clamp(0, [CONFIRM_RUN, @lab.min_run(rate)].max)
          window = @lab.window(run)
          window >= MIN_CONFIRM_SECONDS ? window : nil
        end
      end
    end
  end
end
