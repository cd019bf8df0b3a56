# frozen_string_literal: true

require_relative "verdict_words"

module Rackbench
  module Stats
    class Verdict
      # The three rules where the CPU limited the server (Verdict's header
      # states them and their place in the order): gvl, process_cpu and cpu,
      # each [kind, reason] when it holds, nil otherwise. Read from the
      # trial's Measures; Verdict skips them on a crowded machine.
      class CpuRules
        include Words

        def initialize(measures)
          @m = measures
        end

        # One MRI process of several threads ran near one core, held more
        # than one request, and the setup left cores with no server process.
        def gvl
          busiest = @m.busiest or return nil
          near = T[:near_core] * [100.0, @m.room].min
          return nil unless @m.threads > 1 && !@m.fibers? && busiest >= near && @m.processes < @m.cores && @m.in_flight_per_process > 1
          # Only MRI has a GVL: JRuby runs threads on every core (its JIT and GC
          # threads too), so a JVM near or over one core is not GVL-bound.
          return nil if busiest > T[:over_core] * 100.0 || @m.jruby?

          ["gvl", "#{@m.processes == 1 ? 'the one process' : 'its busiest process'} used #{pct(busiest)} of one core " \
                  "with #{fmt(@m.in_flight_per_process)} requests in flight for its #{@m.threads} threads, " \
                  "while #{fmt(@m.cores - @m.processes)} core(s) had no server process to run (#{@m.cpu_text})"]
        end

        # Single-threaded processes (or one thread of fibers each) each ran
        # near one core while CPU left to the server went unused.
        def process_cpu
          least = @m.least_busy
          return nil unless least && (@m.threads == 1 || @m.fibers?) && !@m.jruby? && !@m.sequential?
          return nil unless least >= T[:near_core] * 100.0 && @m.busiest <= T[:over_core] * 100.0
          return nil unless @m.in_flight >= @m.processes && @m.idle_cores >= T[:idle_cores]

          used = @m.processes == 1 ? "its one process used #{pct(least)}" : "each of its #{@m.processes} processes used #{pct(least)}-#{pct(@m.busiest)}"
          one = @m.fibers? ? "all one process can use: its fibers share one thread" : "all one single-threaded process can use"
          ["process_cpu", "#{used} of one core, #{one}, while #{fmt(@m.idle_cores)} " \
                          "core(s) of the CPU left to it stayed idle: more processes would use them (#{@m.cpu_text})"]
        end

        # The server used CPU_ROOM of the CPU left to it, with the load able to fill the cores.
        def cpu
          return nil unless @m.in_flight >= @m.client_free_cores && @m.server_pct >= T[:cpu_room] * @m.room

          ["cpu", "the server used #{pct(@m.server_pct)} of the #{pct(@m.room)} CPU left to it (#{@m.cpu_text})"]
        end
      end
    end
  end
end
