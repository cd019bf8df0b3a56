# frozen_string_literal: true

require_relative "../load/wrk_open_loop"
require_relative "../report/number_format"

module Rackbench
  module Search
    # A load level the load generator could not hold (Stats::Slo's `client`
    # verdict: wrk's sends went out late while the server answered what it
    # was sent) is no evidence about the server. Capacity and tune measure it
    # once more with half the connections (wrk-open runs one thread per
    # connection, and on a crowded machine fewer threads keep their schedule
    # better), never fewer than the 10 ms rule needs (WrkOpenLoop); if the
    # client still falls behind, the search stops there (Knee's `bound`) and
    # says that the machine, not the server, bounded it.
    module ClientBound
      module_function

      # The connections to measure a client-bound level with again, or nil
      # when there is nothing to take away.
      def fewer_connections(record)
        used = record["connections"].to_i
        floor = Load::WrkOpenLoop.connections_for(rate: record["target_rate"] || record["rate"] || 1)
        fewer = [used / 2, floor].max
        fewer < used ? fewer : nil
      end

      # One line for a search the client ended at rate (req/s).
      def note(rate)
        "the load generator could not hold #{Report::NumberFormat.rps(rate)} req/s on this machine (its sends went " \
          "out late, not the server's doing): the machine bounded the search there, so the server may take more; " \
          "quiet the machine or pin wrk to its own cores (--cpus) and search again"
      end
    end
  end
end
