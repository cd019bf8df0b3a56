# frozen_string_literal: true

require "json"
require "fileutils"
require_relative "../error"

module Rackbench
  module Store
    # The run directory: describes itself and is appended to, never rewritten.
    #
    #   meta.json        environment and expanded plan, written before the first trial
    #   trials.jsonl     one line per trial, appended (and fsynced) the moment it ends
    #   setups.jsonl     one line per server boot: command line, version, pids, or why it failed
    #   samples.jsonl    the process sampler's time series, one line per sample
    #   logs/            server and load-generator output
    class RunDir
      attr_reader :path

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

        new(path)
      end

      def initialize(path)
        @path = path
      end

      def logs_dir
        File.join(@path, "logs")
      end

      def write_meta(meta)
        write_atomically("meta.json", JSON.pretty_generate(meta) + "\n")
      end

      def meta
        JSON.parse(File.read(File.join(@path, "meta.json")))
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
        raise Error, "cannot write #{target}: #{e.message.sub(/ @ .*| - .*/, '')}; free space or choose another --out"
      ensure # a full disk or a signal leaves no half-written file behind
        File.delete(tmp) if tmp && File.exist?(tmp)
      end

      private

      # One JSON line, written with a single write(2) and fsynced, so a crash
      # leaves either the whole line or none of it.
      def append(name, records)
        file = File.join(@path, name)
        text = Array(records.is_a?(Hash) ? [records] : records).map { |r| JSON.generate(r) + "\n" }.join
        File.open(file, "a") do |f|
          f.write(text)
          f.flush
          f.fsync
        end
      rescue SystemCallError => e
        raise Error, "cannot append to #{file}: #{e.message.sub(/ @ .*| - .*/, '')}; " \
                     "the trials before this one are kept in #{@path}"
      end

      def read_lines(name)
        file = File.join(@path, name)
        return [] unless File.file?(file)

        File.foreach(file).filter_map do |line|
          JSON.parse(line)
        rescue JSON::ParserError
          nil # a line cut short by a crash; the rest of the run is still readable
        end
      end
    end
  end
end
