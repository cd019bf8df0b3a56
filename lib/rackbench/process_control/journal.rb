# frozen_string_literal: true

require "json"
require "time"
require_relative "../system/process_tree"
require_relative "../clock"
require_relative "../run_file"
require_relative "owner_mark"
require_relative "stop"
require_relative "../error"

module Rackbench
  module ProcessControl
    # The ledger of what rackbench started, written down where a SIGKILLed
    # rackbench (which runs no cleanup at all) leaves it for the next one to
    # read: processes.jsonl in the run directory, one line when a child is
    # spawned (pid = its process group, start time, argv, and the owner mark
    # of the rackbench that started it: OwnerMark) and one when it has been
    # stopped.
    #
    # A survivor is a live process that is provably ours: its pid AND its
    # start time (field 22 of /proc/PID/stat, clock ticks since boot) match a
    # record without a stop line, or it carries the owner mark of a rackbench
    # that no longer runs. A pid reused by the kernel has another start time,
    # so an unrelated process is never touched. `run --resume` stops the
    # survivors of its run directory; `rackbench doctor` those of any run
    # (OwnerMark.orphans). Finding by mark is OwnerMark's, stopping Stop's.
    class Journal
      FILE = "processes.jsonl"

      def initialize(dir)
        @path = File.join(dir, FILE)
      end

      def started(pid, argv)
        entry = System::ProcessTree.read_stat(pid)
        write("event" => "start", "pid" => pid, "starttime" => entry&.starttime, "owner" => OwnerMark.owner,
              "argv" => argv.first(3), "at" => Clock.wall_iso8601)
      end

      def stopped(pid)
        write("event" => "stop", "pid" => pid)
      end

      # Live processes of dead owners recorded in dir's journal: the recorded
      # groups' members and descendants, and everything carrying their mark.
      def self.survivors(dir)
        path = File.join(dir, FILE)
        return [] unless File.file?(path)

        records = File.foreach(path).filter_map { |l| JSON.parse(l) rescue nil }
        stopped = records.select { |r| r["event"] == "stop" }.map { |r| r["pid"] }
        open = records.select { |r| r["event"] == "start" && !stopped.include?(r["pid"]) }
        owners = records.map { |r| r["owner"] }.compact.uniq.reject { |o| OwnerMark.alive?(o) }
        roots = open.select { |r| owners.include?(r["owner"]) }.filter_map do |r|
          e = System::ProcessTree.read_stat(r["pid"])
          e if e && e.starttime == r["starttime"]
        end
        OwnerMark.collect(roots, owners)
      end

      private

      # One line, one write(2); a journal that cannot be written never stops
      # a run (the run directory's own records report a full disk). RunFile:
      # a FIFO in its place fails at once, a link is never written through
      # (the writer's lock refused both before the run began).
      def write(record)
        RunFile.append(@path, JSON.generate(record) + "\n")
      rescue SystemCallError, Error
        nil
      end
    end
  end
end
