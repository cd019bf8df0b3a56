# frozen_string_literal: true

require_relative "frame_times"

module Rackbench
  module Stats
    # run --profile's stored stacks (profiles.jsonl, each process's "stacks"
    # over its "stack_frames": Sampling::ProfileDump) merged per setup: every
    # process of every complete profiled round of one (endpoint, level,
    # setup), its stacks summed by their frames (a frame is its name and
    # file, as FrameTimes and Attribution name it). What the speedscope
    # export (Report::Speedscope) and the differential flame graph
    # (Report::Html::FlameGraph) draw. Counts are samples (a SIGPROF per
    # kernel tick of CPU time: ~4 ms here; FrameTimes turns them into time);
    # a round whose profile missed a process is left out, as FrameTimes
    # leaves it out. Runs profiled before stacks were stored have none.
    class FrameStacks
      # The samples of the stacks a server did not keep (in_server_profile.rb's MAX_STACKS).
      NOT_KEPT = ["(stacks not kept: the rarest)", ""].freeze

      attr_reader :endpoint, :level, :setup, :frames, :stacks, :rounds, :level_label

      # {[endpoint, level, setup] => FrameStacks}, those with a sample only,
      # in the order of their keys, each one's stacks by samples, then by
      # their frames' names: the same profiles in any order give the same.
      def self.of(profiles)
        groups = profiles.group_by { |p| [p["endpoint"], p["rate"] || p["concurrency"], p["setup"]] }
        found = groups.filter_map do |key, same|
          complete = same.reject { |p| FrameTimes.incomplete?(p) }
          merged = new(*key, complete)
          [key, merged] if merged.samples.positive?
        end
        found.sort_by { |(endpoint, level, setup), _| [endpoint.to_s, level.to_f, setup.to_s] }.to_h
      end

      # profiles: the complete profiled trials of one setup at one cell.
      def initialize(endpoint, level, setup, profiles)
        @endpoint = endpoint
        @level = level
        @setup = setup
        @rounds = profiles.map { |p| p["repetition"].to_i }.uniq.size
        @level_label = profiles.any? { |p| p["rate"] } ? "#{level} req/s offered" : "c=#{level}"
        @index = {}
        @frames = []
        @stacks = Hash.new(0)
        profiles.flat_map { |p| p["processes"] }.each { |process| add(process) }
        @stacks = @stacks.sort_by { |path, n| [-n, path.map { |i| @frames[i] }] }.to_h # not by the order read
      end

      def samples = @stacks.values.sum

      # Each frame's samples in every stack that holds it (its total, a
      # recursive frame counted once a stack).
      def totals
        @stacks.each_with_object(Hash.new(0)) { |(path, n), out| path.uniq.each { |i| out[i] += n } }
      end

      private

      def add(process)
        names = process["stack_frames"] or return
        Array(process["stacks"]).each do |count, path|
          ids = path.empty? ? [id(NOT_KEPT)] : path.map { |i| id(names.fetch(i)) }
          @stacks[ids] += count.to_i
        end
      end

      def id(frame)
        @index.fetch(frame) do
          @frames << frame.dup.freeze
          @index[frame] = @frames.size - 1
        end
      end
    end
  end
end
