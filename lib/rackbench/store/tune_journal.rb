# frozen_string_literal: true

require "json"
require "fileutils"
require_relative "../error"
require_relative "json_lines"

module Rackbench
  module Store
    # tune's own files in the run directory, beside meta.json and
    # trials.jsonl:
    #
    #   tune.jsonl           one line per decision, appended (and fsynced) as it is made:
    #                        "footprint", "space", "round", "level", "confirm", "stop"
    #   recommendation.json  the winner, its evidence and the Pareto table, written at the end
    #   config/puma.rb ...   the winner's config file (ConfigWriter)
    #
    # Report::TuneText renders from these files alone. Tests pass a
    # TuneJournal on a temporary directory, or anything answering #log.
    class TuneJournal
      FILE = "tune.jsonl"
      RECOMMENDATION = "recommendation.json"

      def initialize(store)
        @store = store
      end

      def path
        @store.path
      end

      def log(row)
        self.class.lines(@store.path).append([row]) { |text| @store.notice(text) if @store.respond_to?(:notice) }
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
        raise Error, "cannot write the config file into #{@store.path}: #{Error.reason(e)}"
      end

      # notice: called with a line saying a cut-short last line was left out.
      def self.rows(dir, &notice)
        lines(dir).read(&notice)
      end

      def self.lines(dir)
        Store::JsonLines.new(File.join(dir, FILE), kind: "tune decision", required: %w[type])
      end

      def self.recommendation(dir)
        JSON.parse(File.read(File.join(dir, RECOMMENDATION)))
      rescue Errno::ENOENT, JSON::ParserError
        nil
      end
    end
  end
end
