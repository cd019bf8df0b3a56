# frozen_string_literal: true

require "json"
require "fileutils"
require_relative "../error"
require_relative "target"
require_relative "lock"
require_relative "json_lines"
require_relative "schema"
require_relative "regular_file"
require_relative "own_files"
require_relative "takes"

module Rackbench
  module Store
    # The run directory: describes itself and is appended to, never rewritten.
    #
    #   meta.json        environment and expanded plan, written before the first trial
    #   trials.jsonl     one line per trial, appended (and fsynced) the moment it ends
    #   setups.jsonl     one line per server boot: command line, version, pids, or why it failed
    #   samples.jsonl    the process sampler's time series, one line per sample
    #   queues.jsonl     accept-queue and server-queue readings per trial (Sampling::Queues)
    #   capacity.jsonl   capacity searches: one line per measured level, and the knee
    #   warnings.jsonl   every warning the run gave (Report::WarningLog), with its time
    #   warmups.jsonl    --warmup steady: one line per warm-up window (Runner::SteadyWarmup)
    #   calibration.jsonl the CPU-speed calibrations (Rackbench::Calibration): one line at the start
    #                    and one at the end of each command that measured here (a resume adds two)
    #   logs/            server and load-generator output
    #   processes.jsonl  the process groups the writer started and stopped (ProcessControl::Journal)
    #   .rackbench.lock  the writer lock (Store::Lock): one run, resume, capacity or tune at a time
    #
    # Each .jsonl file is a JsonLines: appends are crash-safe, every line is
    # checked on read (an unreadable one is an Error naming file and line).
    # Notices (a cut-short line left out or moved aside) go to #on_notice,
    # and are kept in #notices for a command to print.
    class RunDir
      # file => [what a line holds, keys every line has]
      FILES = {
        "trials.jsonl" => ["trial", %w[setup endpoint rps]],
        "setups.jsonl" => ["setup", %w[setup status]],
        "samples.jsonl" => ["sample", %w[key t]],
        "queues.jsonl" => ["queue reading", %w[key t]],
        "capacity.jsonl" => ["capacity", %w[setup endpoint]],
        "warnings.jsonl" => ["warning", %w[text]],
        "warmups.jsonl" => ["warm-up window", %w[setup endpoint window]],
        "calibration.jsonl" => ["calibration", %w[phase]]
      }.freeze

      # file => the Store::Schema its lines must fit: a line of the right
      # shape with a wrong type ("setup": 42, "latency_ms": {"mean": "x"}) is an
      # Error naming file and line, not a crash in a report.
      SCHEMAS = { "trials.jsonl" => Schema::TRIAL, "setups.jsonl" => Schema::SETUP }.freeze

      # Every file rackbench writes at the top of a run directory (tune's two: Store::TuneJournal).
      OWN = (FILES.keys + %w[meta.json processes.jsonl .rackbench.lock report.html tune.jsonl recommendation.json profiles.jsonl speedscope.json]).freeze

      attr_reader :path, :notices
      attr_accessor :on_notice

      # A new run directory at path (checked by Store::Target, expanded to
      # an absolute path), locked for this process as its one writer.
      def self.create(path, command: nil)
        path = Target.check_new(path)
        FileUtils.mkdir_p(File.join(path, "logs"))
        probe = File.join(path, ".write-test")
        RegularFile.replace(probe, "ok")
        File.delete(probe)
        new(path).tap { |store| store.lock!(command, fresh: true) }
      rescue SystemCallError => e
        raise Error, "cannot write the run directory #{path}: #{Error.reason(e)}; " \
                     "choose another with --out DIR"
      end

      # A new run directory under ./rackbench-runs named by the time to the
      # millisecond (prefix "capacity-", "tune-" for those commands). The
      # directory is created exclusively (mkdir fails if it exists), so two
      # runs started at the same moment never share one: the second gets a
      # "-2" suffix.
      def self.create_default(prefix = "", command: nil, base: Dir.pwd)
        parent = File.join(base, "rackbench-runs")
        FileUtils.mkdir_p(parent)
        stamp = "#{prefix}#{Time.now.strftime('%Y-%m-%dT%H-%M-%S.%L')}"
        (1..100).each do |n|
          path = File.join(parent, n == 1 ? stamp : "#{stamp}-#{n}")
          begin
            Dir.mkdir(path)
          rescue Errno::EEXIST
            next
          end
          return create(path, command: command)
        end
        raise Error, "cannot create a new run directory under #{parent}; choose one with --out DIR"
      rescue SystemCallError => e
        raise Error, "cannot write the run directory under #{parent}: #{Error.reason(e)}; " \
                     "choose another with --out DIR"
      end

      def self.open(path)
        path = Target.expand(path, option: "the run directory")
        raise Error, "#{path} is not a rackbench run directory (no meta.json); give the directory a run wrote" \
          unless File.file?(File.join(path, "meta.json"))

        new(path).tap(&:meta) # a damaged meta.json is an error here, not halfway through a command
      end

      def initialize(path)
        @path = File.expand_path(path)
        @notices = []
        @on_notice = nil
      end

      # Takes the run directory's writer lock (Store::Lock) for this process;
      # a second writer is refused with the holder's pid and command. A fresh
      # run re-checks under the lock that no other run wrote its meta.json
      # into the directory between the check and the lock.
      # (The writer's journal of the processes it starts, processes.jsonl, is
      # the measuring frame's: CLI::Measuring.)
      def lock!(command, fresh: false)
        regular_files!
        @lock ||= Lock.acquire(@path, command || "rackbench")
        return self unless fresh && File.exist?(File.join(@path, "meta.json"))

        unlock
        raise UsageError, "#{@path} already holds a run; continue it with rackbench run --resume #{@path} " \
                          "or choose another --out"
      end

      # A writer refuses, before it measures anything, a run whose files are
      # not regular files (a FIFO samples.jsonl would block an append for good)
      # or are links (a write would go where the link leads), and a link in
      # place of one of its folders or under logs/ (Store::OwnFiles).
      def regular_files!
        OwnFiles.check!(@path, OWN)
      end

      def unlock
        @lock&.release
        @lock = nil
      end

      def logs_dir
        File.join(@path, "logs")
      end

      def write_meta(meta)
        write_atomically("meta.json", JSON.pretty_generate(meta) + "\n")
      end

      def meta
        file = File.join(@path, "meta.json")
        value = JSON.parse(File.read(file))
        raise Error, "#{file} is not a JSON object; the run directory is damaged: run again with another --out" unless value.is_a?(Hash)

        wrong = Schema.problem(value, Schema::META) or return value
        raise Error, "#{file} is damaged: #{wrong}; restore it, or run again with another --out"
      rescue JSON::ParserError
        raise Error, "#{file} is cut short or not JSON; the run directory is damaged: run again with another --out"
      rescue SystemCallError => e
        raise Error, "cannot read #{file}: #{Error.reason(e)}"
      end

      def append_trial(record)
        append("trials.jsonl", record)
      end

      def append_setup(record)
        append("setups.jsonl", record)
      end

      # Capacity searches: one line per measured level, and the knee found.
      def append_capacity(record)
        append("capacity.jsonl", record)
      end

      def capacity
        read_lines("capacity.jsonl")
      end

      # The sampler's time series of one trial: one line per sample, tagged
      # with the trial's key, written in one go.
      def append_samples(key, series)
        append("samples.jsonl", series.map { |sample| { "key" => key }.merge(sample) })
      end

      def append_queues(key, series)
        append("queues.jsonl", series.map { |row| { "key" => key }.merge(row) })
      end

      # {trial key => [queue readings]} (empty for a run without queues.jsonl).
      def queues
        read_lines("queues.jsonl").group_by { |row| row["key"] }
      end

      # A run whose every setup failed has no trials.jsonl; one whose
      # samples.jsonl holds samples (written just after each trial line)
      # had trials, and a missing trials.jsonl means they are lost.
      def trials
        file = File.join(@path, "trials.jsonl")
        if !File.exist?(file) && !File.symlink?(file) && File.size?(File.join(@path, "samples.jsonl"))
          raise Error, "#{file} is missing, though samples.jsonl holds the samples of trials that ended: the run's " \
                       "trials are lost; restore the file or measure again"
        end
        Takes.boots(raw_trials)
      end

      # Every trial line as stored: with --per-boot K, each take apart
      # (#trials has one record per boot: Takes).
      def raw_trials
        read_lines("trials.jsonl")
      end

      def trial_keys
        raw_trials.map { |t| t["key"] }
      end

      def setups
        read_lines("setups.jsonl")
      end

      def append_warmup(record)
        append("warmups.jsonl", record)
      end

      def warmups
        read_lines("warmups.jsonl")
      end

      # A CPU-speed calibration (Rackbench::Calibration), with its phase.
      def append_calibration(record)
        append("calibration.jsonl", record)
      end

      # The calibrations in the order taken ([] for a run made before them).
      def calibration
        read_lines("calibration.jsonl")
      end

      def append_warning(record)
        append("warnings.jsonl", record)
      end

      def warnings
        read_lines("warnings.jsonl")
      end

      # Tells of a cut-short line: kept in #notices (once each) and passed to
      # on_notice (the run's listeners, while it runs).
      def notice(text)
        return if @notices.include?(text)

        @notices << text
        @on_notice&.call(text)
      end

      # Writes a whole file atomically (temp file + rename): a reader never
      # sees half of it, and a full disk leaves the old file intact. The temp
      # file is made new (O_EXCL, O_NOFOLLOW: a link at its name is removed,
      # never followed); the rename replaces a link at target, never writes through it.
      # A block instead of text writes into the temp file as it goes (Report::Formats.save).
      def write_atomically(name, text = nil)
        target = File.join(@path, name)
        tmp = "#{target}.tmp-#{Process.pid}"
        RegularFile.remove(tmp)
        RegularFile.open(tmp, RegularFile::CREATE) do |f|
          block_given? ? yield(f) : f.write(text)
          f.flush
          f.fsync
        end
        File.rename(tmp, target)
        target
      rescue SystemCallError => e
        raise Error, "cannot write #{target}: #{Error.reason(e)}; free space or choose another --out"
      ensure # a full disk or a signal leaves no half-written file behind
        RegularFile.remove(tmp) if tmp
      end

      private

      def append(name, records)
        lines(name).append(records.is_a?(Hash) ? [records] : records) { |text| notice(text) }
      end

      def read_lines(name)
        lines(name).read { |text| notice(text) }
      end

      def lines(name)
        kind, required = FILES.fetch(name, [name.delete_suffix(".jsonl"), []])
        JsonLines.new(File.join(@path, name), kind: kind, required: required, schema: SCHEMAS.fetch(name, {}),
                                              unique: name == "trials.jsonl")
      end
    end
  end
end
