# frozen_string_literal: true

require "json"
require "fileutils"
require_relative "../../error"

module Rackbench
  module Search
    class Tune
      # tune's own files in the run directory, beside meta.json and
      # trials.jsonl:
      #
      #   tune.jsonl           one line per decision, appended (and fsynced) as it is made:
      #                        "footprint", "space", "round", "level", "confirm", "stop"
      #   recommendation.json  the winner, its evidence and the Pareto table, written at the end
      #   config/puma.rb ...   the winner's config file (ConfigWriter)
      #
      # Report::TuneText renders from these files alone. Tests pass a
      # Journal on a temporary directory, or anything answering #log.
      class Journal
        FILE = "tune.jsonl"
        RECOMMENDATION = "recommendation.json"

        def initialize(store)
          @store = store
        end

        def path
          @store.path
        end

        def log(row)
          file = File.join(@store.path, FILE)
          File.open(file, "a") do |f|
            f.write(JSON.generate(row) + "\n")
            f.flush
            f.fsync
          end
        rescue SystemCallError => e
          raise Error, "cannot append to #{file}: #{e.message.sub(/ @ .*| - .*/, '')}; the trials so far are kept in #{@store.path}"
        end

        def recommend(recommendation)
          @store.write_atomically(RECOMMENDATION, JSON.pretty_generate(recommendation) + "\n")
        end

        # files: {relative path => text}; returns the paths written.
        def write_files(files)
          files.map do |name, text|
            FileUtils.mkdir_p(File.dirname(File.join(@store.path, name)))
            @store.write_atomically(name, text)
          end
        rescue SystemCallError => e
          raise Error, "cannot write the config file into #{@store.path}: #{e.message.sub(/ @ .*| - .*/, '')}"
        end

        def self.rows(dir)
          file = File.join(dir, FILE)
          return [] unless File.file?(file)

          File.foreach(file).filter_map do |line|
            JSON.parse(line)
          rescue JSON::ParserError
            nil
          end
        end

        def self.recommendation(dir)
          JSON.parse(File.read(File.join(dir, RECOMMENDATION)))
        rescue Errno::ENOENT, JSON::ParserError
          nil
        end
      end
    end
  end
end
