# frozen_string_literal: true

require_relative "../error"

module Rackbench
  class Runner
    # run --boot together: one round's setups booted side by side (one boot
    # each, as apart), then measured cell by cell: for each endpoint and
    # level, every setup in the round's own order, so the pairs a decision
    # takes are measured minutes closer together and a round pays its boots
    # without waiting for each setup's trials. Each setup is warmed up just
    # before its first trial of an endpoint, as apart. A setup whose server
    # fails is recorded as failed and left out of the round's remaining
    # cells; the others go on. Every server is stopped when the round ends
    # (or on a signal meanwhile: each Session's own ensure).
    #
    # Limits: each setup is measured beside the others' idle processes
    # (their memory, their timers and GC at rest); bench/idle_neighbour.rb
    # measures what that costs, and Runner::BootFit boots together only when
    # the round's measured footprint fits.
    class SharedRound
      # order: the round's trials as the plan lists them (every setup's, the
      # stored ones too), so a resumed round's remaining cells are measured
      # in the plan's order, not in the order its setups' remaining trials
      # happen to give.
      def initialize(sessions, order: [])
        @sessions = sessions
        @order = order.map { |t| [t.endpoint, level_of(t)] }.uniq
      end

      def call
        boot_all(@sessions, [])
      end

      private

      # Boots each session inside the previous one's with_server block, so
      # every boot is stopped in reverse order whatever happens; a session
      # that fails to boot is skipped.
      def boot_all(rest, live)
        return measure(live) if rest.empty?

        first, *others = rest
        booted = false
        first.with_server do |session|
          booted = true
          boot_all(others, live + [session])
        end
        boot_all(others, live) unless booted
      end

      def measure(live)
        failed = []
        cells(live).each do |endpoint, level|
          live.each do |session|
            next if failed.include?(session) || session.dropped?(endpoint)

            trials = session.trials.select { |t| t.endpoint == endpoint && level_of(t) == level }
            session.run_cell(endpoint, trials) if trials.any?
          rescue SetupFailed => e
            failed << session
            session.fail!(e)
          end
        end
      end

      # [[endpoint, level], ...] in the plan's order (endpoint, then level).
      def cells(live)
        found = live.flat_map { |s| s.trials.map { |t| [t.endpoint, level_of(t)] } }.uniq
        found.each_with_index.sort_by { |cell, i| [@order.index(cell) || @order.size, i] }.map(&:first)
      end

      def level_of(trial)
        trial.rate ? [:rate, trial.rate] : [:concurrency, trial.concurrency]
      end
    end
  end
end
