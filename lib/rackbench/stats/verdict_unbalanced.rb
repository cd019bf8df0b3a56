# frozen_string_literal: true

require_relative "verdict_words"

module Rackbench
  module Stats
    class Verdict
      # The "unbalanced" rule (Verdict's header states it and its place in
      # the order): the workers' shares of the requests were uneven enough to
      # explain a queue beside idle slots, or, with nothing queued, a busiest
      # process near one core while CPU left to the server stayed idle.
      # #call: [kind, reason] when it holds, nil otherwise.
      class Unbalanced
        include Words

        def initialize(trial, measures)
          @t = trial
          @m = measures
        end

        def call
          spread = @m.spread
          return nil unless spread && spread >= T[:spread] && @m.processes > 1 && !@m.sequential?

          why = @m.queueing? ? gap&.then { |g| "while #{@m.queue_text}#{g}" } : core
          return nil unless why

          shares = @m.request_shares.map { |s| pct(s * 100) }.join(":")
          ["unbalanced", "requests split #{shares} over #{@m.processes} workers (the busiest served #{fmt(spread)}x an " \
                         "even share#{keep_alive}) #{why}: an even split would serve about #{fmt(@m.rps * spread)} req/s (#{@m.cpu_text})"]
        end

        private

        # Closed loop: the load generator's connections are kept alive, and
        # each stays on the worker that accepted it, so the split is of
        # connections: name it.
        def keep_alive
          @m.open? ? "" : "; a keep-alive split: each of the #{@t['concurrency']} connections stays on the worker that accepted it"
        end

        # Nothing queues, yet the busiest process ran near one core (all one
        # MRI process's Ruby can use) while the CPU left to the server had room:
        # the split, not the server, held the throughput (Agoo's first process
        # keeping most keep-alive connections on /fibonacci/25 at c=8).
        def core
          busiest = @m.busiest
          return nil if busiest.nil? || @m.crowded? || @m.jruby?
          return nil unless busiest.between?(T[:near_core] * 100.0, T[:over_core] * 100.0) && @m.idle_cores >= T[:idle_cores]

          "while its busiest process used #{pct(busiest)} of one core, all one process's Ruby can use, and " \
            "#{fmt(@m.idle_cores)} core(s) of the CPU left to the server stayed idle; #{@m.queue_text}"
        end

        # ", and 6.4 of 10 threads busy, which bounds it at 198 req/s" when the
        # split explains the gap from that bound; "" for fibers (no slots); nil otherwise.
        def gap
          return "" if @m.fibers?

          busy = @m.busy_slots
          full = [@m.in_flight, @m.slots].min
          return nil unless busy.positive? && busy < T[:busy_share] * full
          return nil unless @m.spread >= T[:explains] * full / busy

          ", #{fmt(busy)} of #{@m.slots} #{@m.threads > 1 ? 'threads' : 'workers'} busy (idle slots bound it at " \
            "#{fmt(@m.rps * full / busy)} req/s)"
        end
      end
    end
  end
end
