# frozen_string_literal: true

require_relative "json_lines"

module Rackbench
  module Store
    # profiles.jsonl (run --profile): one line per profiled trial, appended
    # after the trial's own line in trials.jsonl (a profile that fails is
    # never a lost trial): the trial's key, setup, endpoint, level and round,
    # the requests it served, and per server process the stackprof figures
    # and frames (Sampling::Profiler, Sampling::ProfileDump), with the
    # processes that could not profile ("errors") or never answered ("missing").
    class Profiles
      FILE = "profiles.jsonl"

      # path: the run directory; notice: where a cut-short line is told (RunDir#notice).
      def initialize(path, notice: nil)
        @notice = notice || ->(_text) {}
        @lines = JsonLines.new(File.join(path, FILE), kind: "profile", required: %w[key setup endpoint processes])
      end

      def append(record)
        @lines.append([record]) { |text| @notice.call(text) }
      end

      def read
        @lines.read { |text| @notice.call(text) }
      end

      def any?
        File.size?(@lines.file) ? true : false
      end
    end
  end
end
