# frozen_string_literal: true

require_relative "verdict_words"

module Rackbench
  module Stats
    class Verdict
      # What the in-process probe's time split (a trial's "split",
      # Sampling::TimeSplit) adds to a verdict, when the probe ran:
      #   pool        requests waited for an Active Record connection: in
      #               POOL_WAITING of the pool's samples a thread waited. Tried
      #               before any other limit in the server: a thread waiting for
      #               a connection is neither on the CPU nor serving.
      #   gc          GC-heavy: CPU limited the server (gvl, process_cpu, cpu)
      #               and GC took GC_SHARE or more of the CPU per request (the
      #               server processes' CPU over req/s, or the probe's in-app
      #               CPU when that is larger: on /hello the app's ~10 µs is a
      #               small part of the ~150 µs a request costs the process):
      #               less allocation would raise throughput as much as a
      #               faster CPU.
      #   (gvl)       ruled out when the setup's threads x f < GVL_BUSY: they
      #               cannot keep one GVL busy (gvl_ruled_out?).
      #   db          database-bound: every slot was busy or requests queued
      #               (busy) and SQL took DB_SHARE or more of a request's wall
      #               time: threads wait for the database; more threads only
      #               help while the database keeps up.
      # Every verdict then says where a request's time went and the threads
      # the split predicts: with CPU a share f of the wall time, one process's
      # GVL is saturated near 1/f threads (fewer leave it idle while they
      # wait; more only queue for it), beside the threads the setup runs.
      class SplitRules
        include Words

        THRESHOLDS = {
          pool_waiting: 0.1, # a tenth of the 10 Hz samples had a thread waiting for a connection: not a moment's
          gc_share: 0.2,     # GC a fifth of the CPU: Ruby apps spend a few % in GC (measured: the arena 5%)
          db_share: 0.5,     # most of a request's time in SQL
          gvl_busy: 0.8      # threads x f below this cannot keep one GVL busy: not GVL-bound
        }.freeze
        T = THRESHOLDS

        def initialize(trial, measures)
          split = trial["split"]
          @s = split.is_a?(Hash) && !split.key?("unknown") && split["wall_ms"].to_f.positive? ? split : nil
          @unknown = split.is_a?(Hash) ? split["unknown"] : nil
          @m = measures
        end

        def present? = !@s.nil?

        # Threads that spend most of a request off the CPU cannot hold the
        # GVL: T threads with CPU a share f of their time keep it busy at most
        # T x f of the time. Below GVL_BUSY a process near a core is held by
        # something else (a crowded machine's share of a core), not its GVL.
        def gvl_ruled_out?
          !@s.nil? && !@m.fibers? && @m.threads * @s["cpu_share"].to_f < T[:gvl_busy]
        end

        def pool
          pool = @s && @s["pool"] or return nil
          return nil unless pool["waiting_share"].to_f >= T[:pool_waiting]

          ["pool", "requests waited for an Active Record connection: #{fmt(pool['waiting_mean'])} thread(s) waiting on " \
                   "average, in #{pct(pool['waiting_share'] * 100)} of the pool's samples, with a pool of #{pool['size']} " \
                   "for #{@m.threads} thread(s) per process: raise the pool (config/database.yml pool:, often " \
                   "RAILS_MAX_THREADS) to the threads, or run fewer threads"]
        end

        # The kind and reason a CPU or busy verdict becomes with the split.
        def refine(kind, reason)
          return [kind, reason] unless @s
          return gc(reason) if %w[gvl process_cpu cpu].include?(kind) && gc_share >= T[:gc_share]
          return db(reason) if kind == "busy" && sql_share >= T[:db_share]

          [kind, reason]
        end

        # "; per request: ...; threads: ..." (or why there is no split), ""
        # without the probe. kind: the verdict's, so the threads' advice
        # follows it (no "more threads" where CPU is the limit).
        def note(kind = nil)
          return @unknown ? "; time split unknown: #{@unknown}" : "" unless @s

          @kind = kind
          "; per request: #{parts}; threads: #{threads}"
        end

        CPU_KINDS = %w[cpu process_cpu gvl gc].freeze

        def evidence
          @s&.slice("wall_ms", "cpu_ms", "gc_ms", "waiting_ms", "runq_ms", "sql_ms", "view_ms", "cpu_share", "threads_per_process", "pool")
        end

        private

        def gc_share = cpu_base.positive? ? @s["gc_ms"].to_f / cpu_base : 0.0

        # The CPU a request cost: the process's (Measures#cpu_ms_per_request)
        # or the probe's in-app CPU, whichever is larger.
        def cpu_base = [@m.cpu_ms_per_request.to_f, @s["cpu_ms"].to_f].max
        def sql_share = @s["sql_ms"].to_f / @s["wall_ms"]

        def gc(reason)
          ["gc", "GC took #{ms(@s['gc_ms'])} of the #{ms(cpu_base)} of CPU per request " \
                 "(#{pct(gc_share * 100)}) while CPU was the limit: #{reason}"]
        end

        def db(reason)
          ["db", "SQL took #{ms(@s['sql_ms'])} of a request's #{ms(@s['wall_ms'])} (#{pct(sql_share * 100)}) " \
                 "while every slot was busy: the threads wait for the database: #{reason}"]
        end

        # "9.8 ms CPU (0.6 ms GC), 31 ms SQL, 8 ms other waiting, of 50 ms"
        def parts
          out = ["#{ms(@s['cpu_ms'])} CPU (#{ms(@s['gc_ms'])} GC)"]
          out << "#{ms(@s['sql_ms'])} SQL" if @s.key?("sql_ms")
          out << "#{ms(@s['view_ms'])} in views#{@s.key?('sql_ms') ? ' (SQL a view runs counts in both)' : ''}" if @s["view_ms"].to_f.positive?
          other = [@s["wall_ms"].to_f - @s["cpu_ms"].to_f - @s["sql_ms"].to_f, 0.0].max
          out << "#{ms(other)} #{@s.key?('sql_ms') ? 'other ' : ''}waiting (#{waiting_words})"
          "#{out.join(', ')}, of #{ms(@s['wall_ms'])}#{process_cpu}"
        end

        # What "waiting" holds: with the run-queue delay measured, how much
        # of it was runnable time without a CPU; without, that it may be.
        # The probe reads the threads' whole run-queue delay, the server's
        # own work around the app's call included: more than the waiting
        # inside the call is said as the threads', not as a part of it.
        def waiting_words
          runq = @s["runq_ms"] or return "IO, sleep, the GVL or a CPU's run queue"
          inside = [@s["wall_ms"].to_f - @s["cpu_ms"].to_f, 0.0].max
          if runq.to_f > inside
            return "IO, sleep or the GVL; the request threads waited #{ms(runq)} a request for a CPU, the server's own " \
                   "work around the app included"
          end

          of = @s.key?("sql_ms") ? "of SQL and waiting was" : "of it"
          "IO, sleep or the GVL; #{ms(runq)} #{of} runnable, waiting for a CPU"
        end

        # Most of the waiting was for a CPU (the run queue), by measure.
        def runq_bound?
          waiting = [@s["wall_ms"].to_f - @s["cpu_ms"].to_f, 0.0].max
          @s["runq_ms"] && waiting.positive? && @s["runq_ms"].to_f >= 0.5 * waiting
        end

        # The process's CPU per request beside the app's, when it is more.
        def process_cpu
          per = @m.cpu_ms_per_request or return ""
          per > @s["cpu_ms"].to_f * 1.5 ? " (the server's processes: #{ms(per)} of CPU per request)" : ""
        end

        # The prediction beside what the setup runs.
        def threads
          predicted = @s["threads_per_process"]
          return "no CPU measured, so no prediction" unless predicted

          runs = if @m.fibers?
                   "this setup runs fibers, no thread count"
                 else
                   "this setup runs #{@m.threads} per process#{threads_verdict(predicted)}"
                 end
          near = predicted > MANY ? "beyond #{MANY} threads" : "near #{fmt(predicted)} threads"
          "CPU is #{pct(@s['cpu_share'].to_f * 100)} of a request's time, so one process's GVL saturates #{near} " \
            "(1/f); #{runs}#{pool_bound}"
        end

        MANY = 50 # above this the prediction says only "many": the app mostly waits

        # A pool smaller than the threads caps them first, when threads did
        # wait for it: Rails before 7.2 holds a connection for a whole
        # request, 7.2 and later only while a query runs, so with short
        # queries none may wait (the pool's samples say which).
        def pool_bound
          size = @s.dig("pool", "size")
          return "" unless size && size < @m.threads
          return "; but the pool holds #{size} connections: threads beyond #{size} wait for one" if @s.dig("pool", "waiting_mean").to_f.positive?

          "; the pool holds #{size} connections, and no thread waited for one in its #{@s.dig('pool', 'samples')} samples " \
            "(a connection held only while a query runs)"
        end

        def threads_verdict(predicted)
          return " (one request at a time at c = 1: threads do not limit it)" if @m.sequential?
          return " (its waiting was mostly for a CPU, by the run queue: more threads would not overlap it)" if runq_bound?
          return "" if @m.threads == 1 && predicted < 1.5
          if CPU_KINDS.include?(@kind) && (@m.threads == 1 || @m.threads < 0.8 * predicted)
            return " (CPU is the limit here, so its waiting may be for a CPU: more threads would not overlap it)"
          end

          return " (one thread waits idle for most of a request: more threads, or processes, would overlap the waits)" if @m.threads == 1
          return " (fewer: its GVL waits idle while they wait)" if @m.threads < 0.8 * predicted
          return " (more: they queue for its GVL)" if @m.threads > 1.25 * predicted

          " (about that)"
        end

      end
    end
  end
end
