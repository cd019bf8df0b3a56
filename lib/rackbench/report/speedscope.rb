# frozen_string_literal: true

require "json"
require "stringio"
require_relative "../stats/frame_stacks"
require_relative "../version"
require_relative "../error"

module Rackbench
  module Report
    # run --profile's stacks as one speedscope file (its file format,
    # https://www.speedscope.app/file-format-schema.json: "shared.frames"
    # and a "sampled" profile each), one profile per setup and cell
    # (Stats::FrameStacks: every complete profiled round of it merged),
    # so one file opens every side of a comparison and speedscope's profile
    # menu switches between them. A frame is named as Stats::AttributionText
    # names it, "Class#method (file)", its file relative to the app's root.
    # Weights are samples (unit "none"; ~4 ms of CPU each here: see
    # Stats::FrameTimes). Deterministic: the same run directory gives the
    # same bytes (cells in order, stacks by samples then frames).
    class Speedscope
      SCHEMA = "https://www.speedscope.app/file-format-schema.json"
      FILE = "speedscope.json" # what run --profile leaves in the run directory

      NONE = "no stacks are stored in this run directory: profile it with `rackbench run --profile` " \
             "(runs profiled before stacks were stored have only their flat frames)"

      # stacks: Stats::FrameStacks.of(profiles); name: the file's name (the run's directory).
      def initialize(stacks, name: nil)
        @stacks = stacks
        @name = name
      end

      def any? = @stacks.any?

      # JSON's "profiles" entries: where each setup's profile is in FILE.
      def index
        @stacks.values.each_with_index.map do |s, i|
          { "setup" => s.setup, "endpoint" => s.endpoint, "level" => s.level, "file" => FILE, "profile_index" => i,
            "samples" => s.samples, "rounds" => s.rounds }
        end
      end

      def document
        raise Error, NONE unless any?

        frames = {}
        profiles = @stacks.values.map { |s| profile(s, frames) }
        { "$schema" => SCHEMA, "exporter" => "rackbench #{VERSION}", "name" => @name || "rackbench profile",
          "activeProfileIndex" => 0, "shared" => { "frames" => frames.keys.map { |f| frame(f) } }, "profiles" => profiles }
      end

      def write(io)
        io.write(JSON.generate(document))
        io.write("\n")
      end

      def string = (+"").tap { |out| write(StringIO.new(out)) }

      def self.label(name, file) = file.to_s.empty? ? name.to_s : "#{name} (#{file})"

      private

      def profile(stacks, frames)
        samples = stacks.stacks.keys.map { |path| path.map { |i| frames[stacks.frames[i]] ||= frames.size } }
        { "type" => "sampled", "name" => "#{stacks.setup} · #{stacks.endpoint} · #{stacks.level_label} (#{stacks.rounds} rounds)",
          "unit" => "none", "startValue" => 0, "endValue" => stacks.samples, "samples" => samples,
          "weights" => stacks.stacks.values }
      end

      def frame((name, file))
        file.to_s.empty? ? { "name" => self.class.label(name, file) } : { "name" => self.class.label(name, file), "file" => file }
      end
    end
  end
end
