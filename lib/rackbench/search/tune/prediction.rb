# frozen_string_literal: true

require_relative "../../stats/cell_split"
require_relative "../../server"
require_relative "../../plan/setup"

module Rackbench
  module Search
    class Tune
      # What the in-process probe's split predicts before any search (issue
      # 26): round 0's footprint probes ("SERVER x2" under load) carry each
      # request's thread CPU and wall time (the trial's "split"; the arena
      # always, a user's app with --probe). With f = CPU / wall of a request:
      #
      # - a threaded server: one process's GVL saturates near 1/f threads, so
      #   the threads predicted are the smallest of its ladder at or above
      #   1/f, and the workers one per core (each process then fills its
      #   core), within what the memory budget fits;
      # - one thread per process (Unicorn, Pitchfork, Passenger, Falcon's
      #   fibers aside): each process uses f of a core, so cores / f
      #   processes fill the cores, within the memory fit and the workers
      #   the space allows.
      #
      # A model of a CPU-bound request mix on an otherwise idle machine: it
      # ignores contention for shared resources (a database's own limit, the
      # pool) and the load generator's share of the cores, so the search
      # still brackets the optimum around it and keeps every rule it has;
      # the prediction only orders round 1 (nearest first) and is printed
      # beside what was found. nil without a split (no probe).
      class Prediction
        Guess = Struct.new(:setup, :cpu_share, :threads_exact, :workers_cap, keyword_init: true) do
          def label = setup.label

          def why
            "CPU is #{(cpu_share * 100).round}% of a request's time (1/f = #{threads_exact.round(1)} threads per process)"
          end

          def to_h
            { "setup" => label, "cpu_share" => cpu_share.round(3), "threads_per_process" => threads_exact.round(2),
              "workers_cap" => workers_cap }
          end
        end

        # records: {server => its footprint probes' trial records};
        # limits: Candidates' Limits (max workers by memory and cores);
        # ladders: {server => thread counts} replacing a server's own.
        def self.from(records:, limits:, cores:, ladders: {})
          guesses = records.filter_map do |server, recs|
            split = Stats::CellSplit.of(recs) or next
            f = split["cpu_share"].to_f
            next unless f.positive?

            limit = limits.find { |l| l.server == server } or next
            next unless limit.max_workers.positive?

            [server, guess(server, f, limit.max_workers, cores, ladders[server])]
          end
          guesses.empty? ? nil : new(guesses.to_h)
        end

        def self.guess(server, f, max_workers, cores, ladder)
          klass = Server.adapter_class(server)
          exact = 1.0 / f
          label = if klass.only_one_process?
                    server
                  elsif klass.fibers?
                    "#{server} x#{[cores, max_workers].min}" # fibers overlap the waits inside each process
                  elsif klass.threads
                    steps = ladder || klass.thread_ladder
                    "#{server} x#{[cores, max_workers].min}:#{steps.find { |t| t >= exact.round(1) } || steps.max}"
                  else
                    "#{server} x#{(cores * exact).ceil.clamp(1, max_workers)}"
                  end
          Guess.new(setup: Setup.parse(label), cpu_share: f, threads_exact: exact, workers_cap: max_workers)
        end

        attr_reader :guesses

        def initialize(guesses)
          @guesses = guesses # server => Guess
        end

        # How far setup is from its server's guess: steps of 2x in workers
        # and in threads (Infinity for a server with no guess).
        def distance(setup)
          g = @guesses[setup.server] or return Float::INFINITY
          log2 = ->(a, b) { (Math.log2(a.to_f / b)).abs }
          log2.call(setup.workers, g.setup.workers) + log2.call(setup.threads || 1, g.setup.threads || 1)
        end

        # The guess nearest the best, for the line printed beside the finding.
        def for(server)
          @guesses[server]
        end
      end
    end
  end
end
