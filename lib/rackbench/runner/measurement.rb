# frozen_string_literal: true

require "digest"

require_relative "../clock"
require_relative "../error"
require_relative "trial_record"
require_relative "sampled_processes"
require_relative "health_check"
require_relative "diagnostics"
require_relative "app_error"
require_relative "trial_profile"
require_relative "../process_control/affinity"
require_relative "../sampling/noise"
require_relative "../sampling/unanswered"
require_relative "../load/open_loop_sizing"
require_relative "../workload/arena"
require "uri"
require_relative "../tls"

module Rackbench
  class Runner
    # One trial: drive the load engine at one level against one URL, then
    # store the record at once and tell the listeners.
    class Measurement
      # A file name for a label or trial key: safe characters only, and at
      # most SLUG_MAX bytes (a name over 255 bytes cannot be created; a long
      # endpoint keeps its start and a digest of the whole, so names stay unique).
      # Text with letters beyond ASCII gets the digest too: café and cafè
      # (run --ref café --ref cafè) would otherwise share one name.
      SLUG_MAX = 120

      def self.slug(text)
        slug = text.gsub(/[^A-Za-z0-9.]+/, "_").gsub(/\A_|_\z/, "")
        return slug if slug.bytesize <= SLUG_MAX && text.match?(/\A[ -~]*\z/)

        "#{slug[0, SLUG_MAX - 13]}-#{Digest::SHA256.hexdigest(text)[0, 12]}"
      end

      # Above this share of the machine's CPU taken by the load generator,
      # while the machine is saturated, the server's figures are understated:
      # on 2 cores a client using half a core takes a quarter of the machine.
      CLIENT_SHARE_LIMIT = 0.25
      SATURATED = 0.9

      # A closed-loop trial loses the requests in flight when it ends: up to
      # one per connection, a share of about the latency over the trial's
      # length. Above this share (judged on the warm-up's mean latency),
      # throughput is counted in a window away from the ends (Load::CountWindow).
      END_BIAS_LIMIT = 0.005

      # warmup: the warm-up's Load::Result for this endpoint (nil: none).
      # warmup_summary: --warmup steady's windows (SteadyWarmup::Outcome#to_h).
      # runtime: the setup's Runtime::Check (nil: not booted by rackbench).
      def initialize(trial:, url:, verification:, instance:, context:, front: nil, warmup: nil, warmup_summary: nil,
                     runtime: nil)
        @runtime = runtime&.applies? ? runtime : nil
        @trial = trial
        @warmup = warmup
        @warmup_summary = warmup_summary
        @url = url
        @verification = verification
        @instance = instance
        @front = front
        @ctx = context
        @config = context.config
      end

      # Server errors (5xx) in the trial: the app's own line from the server's log.
      def quote_app_error(record, app_error)
        return unless record.dig("errors", "status").to_i.positive?

        line = app_error.line
        record["app_error"] = line if line
      end

      # A signal before the trial is stored leaves it on the Interrupted
      # (CLI.interrupted says it was cut short and is measured again).
      def call
        measure_and_store
      rescue Interrupted => e
        e.trial ||= @trial unless @stored
        raise
      end

      private

      def measure_and_store
        index = @ctx.progress.next!
        @ctx.listener.trial_started(@trial, index, @ctx.progress.total)
        log = File.join(@ctx.store.logs_dir, "#{self.class.slug(@trial.key)}.#{@ctx.engine.name}.log")
        started_at = Clock.wall_iso8601
        sampler = SampledProcesses.sampler(instance: @instance, front: @front, pid: @config[:pid])&.start
        health = health_check&.start
        diagnostics = Diagnostics.for(instance: @instance, front: @front)&.start
        own = [Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID), Clock.now]
        waits = unanswered_watch&.start
        app_error = AppError.new(@instance&.log_path)
        profile = TrialProfile.for(@ctx, @instance, @trial)&.start
        begin
          result = drive(log)
        ensure
          # Every thread ends, even on a signal meanwhile.
          summary, checks = Thread.handle_interrupt(Interrupted => :never) do
            profile&.stop
            waits&.stop
            [sampler&.stop, health&.stop, diagnostics&.stop]
          end
        end
        result.unanswered_ms ||= waits&.ages_ms
        record = TrialRecord.build(@trial, result, started_at: started_at, log: File.basename(log),
                                                   verification: @verification, timeout_s: @config[:timeout])
        merge_sampler(record, summary.to_h) if summary
        merge_sampler(record, diagnostics.fields(summary)) if diagnostics
        foreign!(record, own, summary)
        record["cpus"] = ProcessControl::Affinity.record(@config[:cpus])
        record["runtime"] = @runtime.state(@instance.workers.map(&:pid)) if @runtime && @instance
        record["connections_sizing"] = @sizing.to_h if @sizing
        record["upstream_delay_s"] = @config[:upstream_delay] if @instance && Workload::Arena.needs_upstream?([@trial.endpoint])
        record["health"] = checks if checks
        quote_app_error(record, app_error)
        record["warmup"] = @warmup_summary if @warmup_summary
        record["warnings"] = warnings(record) + warmup_warnings
        @ctx.store.append_trial(record)
        @stored = true
        @ctx.store.append_samples(@trial.key, sampler.series) if sampler
        @ctx.store.append_queues(@trial.key, diagnostics.series) if diagnostics
        record["warnings"] += profile.store(record) if profile # after the trial is stored: never costs it
        record["warnings"].each { |w| @ctx.listener.warning(w) }
        @ctx.listener.trial_finished(record, index, @ctx.progress.total)
        record
      end

      # The sampler's fields join the record but never replace one of the
      # engine's (duration_s, requests, errors): a clash is a bug here.
      def merge_sampler(record, fields)
        clash = record.keys & fields.keys
        raise ArgumentError, "sampler fields #{clash.join(', ')} would replace the trial's own" unless clash.empty?

        record.merge!(fields)
      end

      # The machine's CPU that neither the server, the load generator nor
      # rackbench used: other users' load. From the process sampler's own
      # window when it read the machine (Sampling::MachineWindow, with its
      # error bound and limit); else from the queue readers' window
      # (Sampling::Noise.foreign_pct).
      def foreign!(record, own, summary)
        same = summary&.machine_h
        return record["machine"] = same if same
        return unless record["machine"].is_a?(Hash)

        wall = Clock.now - own[1]
        ours = wall.positive? ? 100.0 * (Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - own[0]) / wall : 0
        record["machine"]["rackbench_pct"] = ours.round(1)
        record["machine"]["foreign_pct"] = Sampling::Noise.foreign_pct(record, ours)
      end

      # Closed loop only: the open-loop script knows its own in-flight
      # requests' waits, and its idle connections would look hung.
      def unanswered_watch
        return nil if @trial.rate

        Sampling::Unanswered.new(port: URI(@url).port, pids: -> { SampledProcesses.client_pids })
      end

      def health_check
        path = @config[:health_path] || (@ctx.app.arena? && !@config[:url] ? Workload::Arena::READY_PATH : nil)
        return nil unless path

        uri = URI(@url)
        HealthCheck.new(host: uri.host, port: uri.port, path: path, timeout: @config[:health_timeout],
                        tls: Tls.for_url(@url, @ctx.tls))
      end

      def drive(log)
        ProcessControl::Affinity.pin(@ctx.engine, @config[:cpus])
        common = { url: @url, duration: @config[:duration], timeout: @config[:timeout], log_path: log }
        common[:scenario] = @ctx.plan.scenario if @ctx.plan.scenario
        unless @trial.rate
          common[:window] = true if window?
          return @ctx.engine.run(concurrency: @trial.concurrency, threads: @config[:threads], **common)
        end

        @ctx.engine.run(rate: @trial.rate, **open_loop_connections, **common)
      end

      # --connections, or --expected-latency, as given; otherwise sized from
      # the warm-up (Load::OpenLoopSizing, stored on the trial), or for
      # DEFAULT_EXPECTED_S without one.
      DEFAULT_EXPECTED_S = 0.25

      def open_loop_connections
        return { connections: @config[:connections] } if @config[:connections]
        return { expected_latency_ms: @config[:expected_latency] * 1000 } if @config[:expected_latency]

        @sizing = Load::OpenLoopSizing.decide(rate: @trial.rate, latency_ms: Load::OpenLoopSizing.warmup_p99(@warmup))
        @sizing ? { connections: @sizing.connections } : { expected_latency_ms: DEFAULT_EXPECTED_S * 1000 }
      end

      # Count in a window when the engine can, no scenario picks the paths,
      # and the warm-up's mean latency is over END_BIAS_LIMIT of the trial.
      def window?
        mean_ms = @warmup&.latency_ms&.dig("mean")
        return false unless mean_ms && @ctx.engine.respond_to?(:counts_window?) && !@ctx.plan.scenario

        mean_ms / 1000.0 > END_BIAS_LIMIT * @config[:duration]
      end

      # Server memory growing by more than this share within one trial is
      # flagged: a preforked server's RSS settles within its warm-up, so
      # growth like this during a few seconds of load is a leak or unbounded
      # cache, and later trials of the setup measure a different server.
      RSS_GROWTH_LIMIT = 0.5

      def warmup_warnings
        return [] unless @warmup_summary && !@warmup_summary["steady"]

        w = @warmup_summary["windows"]
        ["#{@trial.setup.label} #{@trial.endpoint} #{@trial.level_label}: the warm-up reached no steady state in " \
         "#{@warmup_summary['seconds']} s (last windows #{w.last(2).join(' and ')} #{@warmup_summary['metric']}), so " \
         "the server (its JIT) may still be warming up during the trial; raise --warmup-max or --warmup-tolerance"]
      end

      def warnings(record)
        cell = "#{@trial.setup.label} #{@trial.endpoint} #{@trial.level_label}"
        [client_warning(record, cell), restart_warning(record, cell), stopped_warning(record, cell), growth_warning(record, cell),
         starved_warning(record, cell), @sizing&.note&.then { |n| "#{cell}: #{n}" }].compact
      end

      def client_warning(record, cell)
        client = record.dig("cpu", "client_machine_share")
        server = record.dig("cpu", "server_machine_share")
        return unless client && server && client > CLIENT_SHARE_LIMIT && client + server > SATURATED

        "#{cell}: the load generator used #{(client * 100).round}% of the machine's CPU while it was saturated, " \
          "so the server's figures are understated; use fewer load threads (--threads 1) or load from another machine (--url)"
      end

      # Workers seen during the trial and gone by its end (Sampling::TrialSummary#worker_restarts):
      # a lower bound, as the sampler looks every interval.
      def restart_warning(record, cell)
        restarts = record.dig("processes", "worker_restarts").to_i
        return if restarts.zero?

        "#{cell}: at least #{restarts} worker process(es) exited during the trial (a crash, or a memory limit; the " \
          "sampler sees the workers 5 times a second, so one that lived and died between two looks is not counted), " \
          "so its figures include the requests they dropped and their replacements' start; see the server's log and measure again"
      end

      def stopped_warning(record, cell)
        pids = record.dig("processes", "stopped_pids")
        return if pids.nil? || pids.empty?

        "#{cell}: server process(es) #{pids.join(', ')} were stopped (SIGSTOP or a debugger) during the trial, so " \
          "it measured a frozen server; resume them (kill -CONT) and measure again"
      end

      # Above this share of its ticks missed, the sampler did not watch the
      # trial: rackbench itself was stopped (SIGSTOP, a debugger) or starved
      # of CPU, and the trial's CPU, memory and health figures rest on a few
      # samples. A busy machine misses a few ticks; a fifth is no longer a few.
      MISSED_TICKS_LIMIT = 0.2

      def starved_warning(record, cell)
        missed = record.dig("sampler", "missed_ticks").to_i
        taken = record.dig("sampler", "samples").to_i
        return if missed.zero? || missed.fdiv(missed + taken) <= MISSED_TICKS_LIMIT

        "#{cell}: rackbench's process sampler missed #{missed} of #{missed + taken} ticks " \
          "(#{(100.0 * missed / (missed + taken)).round}%): rackbench itself was stopped (SIGSTOP, a debugger) or starved " \
          "of CPU, so the trial's CPU, memory and health figures rest on #{taken} samples; measure again"
      end

      def growth_warning(record, cell)
        growth = record.dig("processes", "rss_growth")
        return unless growth && growth > RSS_GROWTH_LIMIT

        "#{cell}: the server's memory grew by #{(growth * 100).round}% during the trial (RSS, first vs last quarter " \
          "of the samples): a leak or an unbounded cache; later trials of this setup measure a bigger server"
      end
    end
  end
end
