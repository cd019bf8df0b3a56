# frozen_string_literal: true

require_relative "../../plan/setup"
require_relative "../../server"
require_relative "../../units"

module Rackbench
  module Search
    class Tune
      # The space tune searches: servers x workers x threads, bounded by the
      # memory budget as measured on this app.
      #
      # Workers: each server is first booted as "SERVER x2" (Puma "x2:1")
      # under a short load; its PSS per worker and PSS of the master give
      #   max workers = floor((budget - master) / per worker)
      # capped at 2 x cores (past that, more processes only add context
      # switches on CPU-bound work; IO-bound apps get their concurrency from
      # threads), or at --max-workers when given. Tried: every count up to 4,
      # then about x1.5 steps (6, 8, 12, 16, 24, ...) and the maximum itself.
      #
      # Threads: each server's own ladder (Server::Base.thread_ladder: 1, 2,
      # 3, 5, 8, 16 for a threaded server; ladders: {server => counts}
      # overrides one, as --puma-threads does Puma's). Unicorn, Passenger,
      # Pitchfork and Falcon run one thread per worker (Falcon: one fiber
      # reactor per process); Thin one process.
      #
      # "Master" is everything that is not a worker (Puma's or Unicorn's
      # master, Passenger's core and watchdog, Pitchfork's mold), so the
      # budget covers the whole footprint.
      module Candidates
        CORE_FACTOR = 2

        # What a server's footprint probe measured (MiB).
        Footprint = Struct.new(:server, :per_worker_mb, :master_mb, keyword_init: true)
        # One setup to try, with the footprint it is expected to have.
        Candidate = Struct.new(:setup, :estimate_mb, keyword_init: true) do
          def label = setup.label
        end
        # Per server: how many workers fit and why (shown in the output).
        Limit = Struct.new(:server, :max_workers, :fit, :cap, :cap_reason, :note, keyword_init: true)

        module_function

        # The setup booted to measure a server's memory.
        def footprint_setup(server)
          Setup.parse(Server.adapter_class(server).footprint_label)
        end

        # footprints: {server => Footprint}. Returns [candidates, limits].
        def build(footprints:, budget_mb:, cores:, max_workers: nil, ladders: {})
          limits = footprints.values.map { |fp| limit(fp, budget_mb, cores, max_workers) }
          candidates = limits.select { |l| l.max_workers.positive? }.flat_map do |l|
            setups(l.server, l.max_workers, ladders[l.server]).map do |setup|
              Candidate.new(setup: setup, estimate_mb: estimate(footprints[l.server], setup))
            end
          end
          [candidates, limits]
        end

        def limit(footprint, budget_mb, cores, max_workers)
          server = footprint.server
          measured = footprint.per_worker_mb&.positive?
          fit = measured ? ((budget_mb - footprint.master_mb.to_f) / footprint.per_worker_mb).floor : nil
          cap, reason = if only_one_process?(server)
                          [1, "#{server} runs one process"]
                        elsif max_workers
                          [max_workers, "--max-workers #{max_workers}"]
                        else
                          [CORE_FACTOR * cores, "#{CORE_FACTOR} x #{cores} cores"]
                        end
          max = fit ? fit.clamp(0, cap) : cap
          Limit.new(server: server, max_workers: max, fit: fit, cap: cap, cap_reason: reason,
                    note: note(footprint, fit, budget_mb, cap, reason))
        end

        def note(fp, fit, budget_mb, cap, reason)
          return "#{fp.server}: memory was not measured (no PSS sample); workers capped at #{cap} (#{reason})" if fit.nil?

          head = "#{fp.server}: #{Units.mib(fp.per_worker_mb)} per worker + #{Units.mib(fp.master_mb)} master"
          return "#{head}: not even one worker fits in #{Units.mib(budget_mb)}" if fit < 1

          capped = fit > cap ? "; capped at #{cap} (#{reason})" : ""
          "#{head} -> #{fit} worker#{fit == 1 ? '' : 's'} fit in #{Units.mib(budget_mb)}#{capped}"
        end

        # ladder: the thread counts to try (nil: the server's own).
        def setups(server, max_workers, ladder = nil)
          return [Setup.parse(server)] if only_one_process?(server)

          workers = worker_counts(max_workers)
          klass = Server.adapter_class(server)
          return workers.map { |w| Setup.parse("#{server} x#{w}") } unless klass.threads

          workers.product(ladder || klass.thread_ladder).map { |w, t| Setup.parse("#{server} x#{w}:#{t}") }
        end

        def only_one_process?(server)
          Server.adapter_class(server).only_one_process?
        end

        WORKER_LADDER = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256].freeze

        # 1, 2, 3, 4, then about x1.5 steps (6, 8, 12, 16, 24, ...), and the maximum.
        def worker_counts(max)
          (WORKER_LADDER.select { |w| w < max } << max).uniq
        end

        # Expected PSS footprint: the master plus one share per worker (Puma
        # single mode, x1, is one process: about the master plus a worker).
        def estimate(fp, setup)
          return nil unless fp.per_worker_mb
          return fp.master_mb + fp.per_worker_mb if only_one_process?(setup.server)

          fp.master_mb + fp.per_worker_mb * setup.workers
        end
      end
    end
  end
end
