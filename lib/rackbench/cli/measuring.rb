# frozen_string_literal: true

require_relative "../error"
require_relative "../redact"
require_relative "../clock"
require_relative "../environment"
require_relative "../store/run_dir"
require_relative "../report/listener"
require_relative "../report/progress"
require_relative "../report/warning_log"
require_relative "../process_control/registry"
require_relative "../process_control/journal"
require_relative "../process_control/orphans"
require_relative "../calibration"
require_relative "../stats/cpu_speed"
require_relative "../stats/decision_text"

module Rackbench
  module CLI
    # The frame every measuring command runs in (run, capacity, tune, and
    # bench/tune_vs_grid.rb), so they agree on it:
    #
    # - the run directory: --out or rackbench-runs/PREFIX<timestamp>, created
    #   and locked against a second writer, and its processes.jsonl
    #   (ProcessControl::Journal) writing down every child the command
    #   starts and stops, so a writer killed by SIGKILL leaves a list of what
    #   may have outlived it for the next --resume;
    # - meta.json: the environment, the command and its argv (a password in
    #   a URL masked, Redact), the run directory and the start time, plus
    #   what the command adds;
    # - the listeners: warnings.jsonl always (the store's notices too), the
    #   terminal's progress unless quiet;
    # - a CPU-speed calibration (Rackbench::Calibration, about 0.5 s) before
    #   the command measures and another once it has finished, appended to
    #   calibration.jsonl (a resume adds its own two), for rackbench compare;
    # - whatever happens: every child stopped, the lock released; an error
    #   names the run directory when it holds trials (CLI#kept says how to go
    #   on); a full disk is one line.
    class Measuring
      attr_reader :store

      def initialize(command:, argv:, err:, env: ENV, quiet: false)
        @command = command
        @argv = ["rackbench", *command.split, *Redact.argv(argv)] # a password in --url stored nowhere
        @err = err
        @env = env
        @quiet = quiet
      end

      # The listeners of a measuring command: warnings.jsonl always, the
      # terminal's progress unless quiet. The store's notices (a line cut
      # short by an earlier crash) become warnings too.
      def self.listener(store, err:, quiet:)
        listener = Report::Fanout.new(Report::WarningLog.new(store), quiet ? [] : [Report::Progress.new(err)])
        store.notices.each { |text| listener.warning(text) }
        store.on_notice = ->(text) { listener.warning(text) }
        listener
      end

      # Yields (store, listener) and returns what the block returns. store:
      # a run directory already open and locked (run --resume); otherwise
      # one is created under out (nil: the default) with meta.json.
      def call(out: nil, prefix: "", meta: {}, store: nil)
        since = ProcessControl::Orphans.now
        @store = store || create(out, prefix)
        ProcessControl::Registry.journaling(ProcessControl::Journal.new(@store.path)) do
          @store.write_meta(meta_for(meta)) unless store
          listener = Measuring.listener(@store, err: @err, quiet: @quiet)
          @since = since
          calibrate("start", listener)
          result = yield @store, listener
          finish(listener)
          result
        ensure
          ProcessControl::Registry.stop_all # the journal still writes their stops
        end
      rescue Errno::ENOSPC, Errno::EDQUOT => e
        # A full disk anywhere (a log, a record): one clear line, exit 1.
        raise kept(Error.new("the disk is full (#{Error.reason(e)}); free space and run again"))
      rescue Error, Interrupted => e
        raise kept(e)
      ensure
        ProcessControl::Registry.stop_all
        ProcessControl::Orphans.stop(ProcessControl::Orphans.adopted(since: since)) if since
        @store&.unlock
      end

      # The command's measuring is over: what outlived its servers stopped,
      # the end's calibration taken (once, here or at the end of call). run
      # calls it before its report with its margin, and is told when the
      # CPU's speed moved during the run (speed_moved), above its answer.
      def finish(listener, margin: nil)
        return if @finished

        @finished = true
        stop_orphans(@since, listener)
        calibrate("end", listener)
        speed_moved(listener, margin) if margin
      end

      private

      # The run's calibrations (a resume's too) moved by more than the
      # margin and beyond the readings' own spread (Stats::CpuSpeed, the
      # rule compare uses): said, since one setup's figures then mix fast and
      # slow periods; the decisions between setups pair by round.
      def speed_moved(listener, margin)
        drift = Stats::CpuSpeed.drift(@store.calibration, margin: margin) or return
        moved = drift.readings.map { |phase, v| "#{phase} #{v.round}" }.join(" -> ")
        listener.warning("the CPU's speed moved #{Stats::DecisionText.pct((drift.ratio - 1) * 100)}% during the run " \
                         "(#{Calibration::NAME} iterations per CPU-second: #{moved}; more than the +-" \
                         "#{Stats::DecisionText.pct(margin * 100)}% margin and the readings' own spread): decisions between " \
                         "setups are paired by round, but the machine was not steady, so each setup's own figures mix fast " \
                         "and slow periods; quiet the machine (rackbench doctor) and run again to compare them with another run")
      end

      # What outlived the servers that started it, found by ancestry
      # (ProcessControl::Orphans: re-parented to rackbench), is stopped and said.
      def stop_orphans(since, listener)
        left = ProcessControl::Orphans.stop(ProcessControl::Orphans.adopted(since: since))
        return if left.empty?

        listener.warning("#{left.size} process(es) started during the run outlived the server that started them " \
                         "(re-parented to rackbench: #{left.first(3).join('; ')}); rackbench stopped them")
      end

      # Not taken when the command stopped on an error or a signal: the
      # start's reading stays, alone.
      def calibrate(phase, listener)
        reading = Calibration.measure(log_path: File.join(@store.logs_dir, "calibration.log"))
        @store.append_calibration({ "phase" => phase, "at" => Clock.wall_iso8601 }.merge(reading))
        return unless reading["error"]

        listener.warning("the CPU-speed calibration at the #{phase} failed: #{reading['error']}; " \
                         "rackbench compare cannot check this run's machine speed")
      end

      def create(out, prefix)
        line = @argv.join(" ")
        out ? Store::RunDir.create(out, command: line) : Store::RunDir.create_default(prefix, command: line)
      end

      def meta_for(extra)
        Environment.collect(env: @env).merge("command" => @command, "argv" => @argv,
                                             "run_dir" => File.expand_path(@store.path),
                                             "started_at" => Clock.wall_iso8601).merge(extra)
      end

      def kept(error)
        error.run_dir ||= @store.path if @store&.trials&.any?
        error
      end
    end
  end
end
