# frozen_string_literal: true

module Rackbench
  module Stats
    # run --profile's stored profiles (profiles.jsonl) as time per request,
    # per frame, per counter, per setup and round: what Attribution pairs.
    #
    # Method: stackprof samples a process's CPU (a SIGPROF per kernel tick of
    # CPU time: 4 ms here, not the 1 ms asked), and the samples are read as
    # shares of the process's own CPU time over the profiled window (cpu_s,
    # CLOCK_PROCESS_CPUTIME_ID): a frame's time = its self samples / the
    # process's samples x cpu_s, summed over the processes that served the
    # trial (and over a round's takes), over the requests the trial served.
    # Self time only: it sums to the profiled CPU per request, so frames'
    # changes add up to the total's. Counters (objects allocated, GC runs,
    # GC time: GC.stat deltas over the window, whole processes; SQL queries
    # and their time where Active Support is loaded, and the queries of
    # each normalized statement as the counter STATEMENT + its text) per
    # request the same way (the SQL ones per request Rails finished, where
    # it counted them). Limits: a frame's figure rests on its samples (~250 per
    # process-second here), so a frame of a few samples per round is noise;
    # samples land at safepoints (a C call's time is its Ruby caller's).
    # A round whose profile missed a process (an error, no dump) is left
    # out: its figures would understate that side.
    module FrameTimes
      COUNTERS = %w[alloc gc_count gc_time_ms sql_count sql_ms].freeze
      TOTAL = "cpu_ms"
      STATEMENT = "sql: " # a counter's name prefix: the queries of one statement
      SQL = /\Asql[_:]/.freeze # the counters of Active Support's SQL events: per request Rails finished

      # One setup's round: {[name, file] => ms per request}, {counter => per request}.
      Round = Struct.new(:frames, :counters, :requests, keyword_init: true) do
        def total = counters.fetch(TOTAL, 0.0)
      end

      module_function

      # {[endpoint, level, setup] => {round => Round}}; level: the trial's
      # rate, else its concurrency (Stats::Cells' level).
      def of(profiles)
        profiles.group_by { |p| [p["endpoint"], p["rate"] || p["concurrency"], p["setup"]] }.transform_values do |same|
          same.group_by { |p| p["repetition"].to_i }.filter_map { |r, takes| (round = round(takes)) && [r, round] }.to_h
        end
      end

      def round(takes)
        requests = takes.sum { |t| t["requests"].to_i }
        return nil if requests.zero? || takes.any? { |t| incomplete?(t) }

        frames = Hash.new(0.0)
        counters = Hash.new(0.0)
        processes = takes.flat_map { |t| t["processes"] }
        processes.each { |process| add(process, frames, counters) }
        Round.new(frames: per(frames, requests), counters: counters_per(counters, requests, processes), requests: requests)
      end

      # The SQL counters over the requests Rails itself finished in the
      # window (every query of a request then falls inside it: the window
      # opens before the load and closes after), where it counted them; the
      # others, and SQL without that count, over the trial's requests.
      def counters_per(counters, requests, processes)
        rails = processes.sum { |p| p["sql_requests"].to_i }
        counters.to_h { |k, v| [k, v / (rails.positive? && k.match?(SQL) ? rails : requests)] }
      end

      def incomplete?(profile)
        Array(profile["missing"]).any? || Array(profile["errors"]).any? || Array(profile["processes"]).empty?
      end

      def add(process, frames, counters)
        samples = process["samples"].to_f
        cpu_ms = process["cpu_s"].to_f * 1000
        COUNTERS.each { |c| counters[c] += process[c].to_f if process.key?(c) } # SQL: only where Rails is loaded
        Array(process["statements"]).each { |sql, n, _ms| counters["#{STATEMENT}#{sql}"] += n.to_f }
        return if samples.zero? # an idle process (a master): no frame, no CPU worth naming

        counters[TOTAL] += cpu_ms
        process["frames"].each { |name, file, own, _total| frames[[name, file]] += own / samples * cpu_ms }
      end

      def per(sums, requests)
        sums.transform_values { |v| v / requests }
      end
    end
  end
end
