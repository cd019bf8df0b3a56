# frozen_string_literal: true

require "json"
require "fileutils"
require_relative "../error"
require_relative "json_lines"

module Rackbench
  module Store
    # The run directory: describes itself and is appended to, never rewritten.
    #
    #   meta.json        environment and expanded plan, written before the first trial
    #   trials.jsonl     one line per trial, appended (and fsynced) the moment it ends
    #   setups.jsonl     one line per server boot: command line, version, pids, or why it failed
    #   samples.jsonl    the process sampler's time series, one line per sample
    #   capacity.jsonl   capacity searches: one line per measured level, and the knee
    #   warnings.jsonl   every warning the run gave (Report::WarningLog), with its time
    #   logs/            server and load-generator output
    #
    # Each .jsonl file is a JsonLines: appends are crash-safe, every line is
    # checked on read (an unreadable one is an Error naming file and line).
    # Notices (a cut-short line left out or moved aside) go to #on_notice,
    # and are kept in #notices for a command to print.
    class RunDir
      # file => [what a line holds, keys every line has]
      FILES = {
        "trials.jsonl" => ["trial", %w[setup endpoint]],
        "setups.jsonl" => ["setup", %w[setup status]],
        "samples.jsonl" => ["sample", %w[key t]],
        "capacity.jsonl" => ["capacity", %w[setup endpoint]],
        "warnings.jsonl" => ["warning", %w[text]]
      }.freeze

      attr_reader :path, :notices
      attr_accessor :on_notice

      def self.create(path)
        if File.exist?(File.join(path, "meta.json"))
          raise Error, "#{path} already holds a run; continue it with rackbench run --resume #{path} " \
                       "or choose another --out"
        end
        FileUtils.mkdir_p(File.join(path, "logs"))
        probe = File.join(path, ".write-test")
        File.write(probe, "ok")
        File.delete(probe)
        new(path)
      rescue SystemCallError => e
        raise Error, "cannot write the run directory #{path}: #{e.message.sub(/ @ .*| - .*/, '')}; " \
                     "choose another with --out DIR"
      end

      def self.open(path)
        raise Error, "#{path} is not a rackbench run directory (no meta.json); give the directory a run wrote" \
          unless File.file?(File.join(path, "meta.json"))

        new(path).tap(&:meta) # a damaged meta.json is an error here, not halfway through a command
      end

      def initialize(path)
        @path = path
        @notices = []
        @on_notice = nil
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
        return value if value.is_a?(Hash)

        raise Error, "#{file} is not a JSON object; the run directory is damaged: run again with another --out"
      rescue JSON::ParserError
        raise Error, "#{file} is cut short or not JSON; the run directory is damaged: run again with another --out"
      rescue SystemCallError => e
        raise Error, "cannot read #{file}: #{Store.reason(e)}"
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

      def trials
        read_lines("trials.jsonl")
      end

      def trial_keys
        trials.map { |t| t["key"] }
      end

      def setups
        read_lines("setups.jsonl")
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
      # sees half of it, and a full disk leaves the old file intact.
      def write_atomically(name, text)
        target = File.join(@path, name)
        tmp = "#{target}.tmp-#{Process.pid}"
        File.open(tmp, "w") do |f|
          f.write(text)
          f.flush
          f.fsync
        end
        File.rename(tmp, target)
        target
      rescue SystemCallError => e
        File.delete(tmp) if tmp && File.exist?(tmp)
        raise Error, "cannot write #{target}: #{Store.reason(e)}; free space or choose another --out"
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
        JsonLines.new(File.join(@path, name), kind: kind, required: required)
      end
    end
  end
end
