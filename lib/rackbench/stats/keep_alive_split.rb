# frozen_string_literal: true

require_relative "verdict_words"

module Rackbench
  module Stats
    class Verdict
      # What a closed loop's keep-alive split cost, said beside whatever
      # verdict the trial got (issue 34: puma x8:8 at c = 64 served 10% below
      # an even split, and nothing named why). Each of wrk's connections stays
      # on the worker that accepted it, so a threaded server's workers hold
      # uneven numbers of connections: one with more connections than threads
      # queues the extra requests inside it, while another with fewer leaves
      # threads idle. The unbalanced rule names a split that explains the
      # whole gap; this note names the smaller ones it leaves to other kinds.
      #
      # Estimate: connections per worker from its share of the requests
      # (share x concurrency: an overloaded worker serves its connections a
      # little slower, so this understates its count); idle threads
      # sum(max(threads - held, 0)) and requests waiting beyond a worker's
      # threads sum(max(held - threads, 0)); an even split would move the
      # lesser of the two onto idle threads, so serve about
      # req/s x busy / (busy - moved), busy = min(concurrency, slots). Named
      # when that is MIN_SHARE of the slots or more.
      module KeepAliveSplit
        extend Words

        MIN_SHARE = 0.05 # of the slots: beyond the connections' random spread over a few workers
        SKIP = %w[unbalanced errors client behind unknown].freeze

        module_function

        # "" or "; a keep-alive split: ..." for a trial's Measures and verdict kind.
        def note(measures, kind)
          m = measures
          return "" if SKIP.include?(kind) || !applies?(m)

          held = m.request_shares.map { |s| s * m.in_flight }
          idle = held.sum { |h| [m.threads - h, 0.0].max }
          waiting = held.sum { |h| [h - m.threads, 0.0].max }
          moved = [idle, waiting].min
          busy = [m.in_flight, m.slots.to_f].min
          return "" if moved < MIN_SHARE * m.slots || moved >= busy

          "; a keep-alive split: each of the #{fmt(m.in_flight)} connections stays on the worker that accepted it, and the " \
            "workers served #{pct(m.request_shares.first * 100)} to #{pct(m.request_shares.last * 100)} of the requests " \
            "(about #{fmt(held.max)} to #{fmt(held.min)} connections each for #{m.threads} threads): about #{fmt(idle)} " \
            "of #{m.slots} threads had no request while #{fmt(waiting)} requests waited in busier workers; an even split " \
            "would serve about #{fmt(m.rps * busy / (busy - moved))} req/s (#{pct(100.0 * moved / (busy - moved))} more)"
        end

        # A closed loop of several connections over threaded workers
        # (not fibers, which take every connection's requests at once), each
        # worker's share of the requests counted.
        def applies?(m)
          !m.open? && !m.sequential? && !m.fibers? && m.threads > 1 && m.processes > 1 &&
            m.request_shares.size == m.processes
        end
      end
    end
  end
end
