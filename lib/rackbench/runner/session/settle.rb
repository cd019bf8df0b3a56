# frozen_string_literal: true

require_relative "../../deadline"
require_relative "../../process_control/http_probe"

module Rackbench
  class Runner
    class Session
      # The settle phase, after each trial: when a trial's load stops, a
      # server may still hold queued requests (wrk closes its connections,
      # but Unicorn and Thin serve every request already accepted), and the
      # next trial would wait behind them. A fresh request to the ready path,
      # served in arrival order, is answered once they are done: wait for it,
      # within the request timeout plus the trial's duration.
      class Settle
        # within: seconds to wait for the answer.
        def initialize(host:, port:, path:, tls:, within:)
          @host = host
          @port = port
          @path = path
          @tls = tls
          @within = within
        end

        # True once the server answered; false when it was still busy at the deadline.
        def call
          deadline = Deadline.in(@within)
          answered = deadline.wait_until(every: 0.05) do
            ProcessControl::HttpProbe.get(@host, @port, @path, timeout: [deadline.left, 0.5].max, tls: @tls)
          end
          answered ? true : false
        end
      end
    end
  end
end
