# frozen_string_literal: true

require "json"
require "time"
require_relative "../system/process_tree"
require_relative "../clock"
require_relative "../run_file"
require_relative "../error"

module Rackbench
  module ProcessControl
    # What rackbench started, written down where a SIGKILLed rackbench (which
    # runs no cleanup at all) leaves it for the next one to read:
    #
    # - processes.jsonl in the run directory: one line when a child is
    #   spawned (pid = its process group, start time, argv) and one when it
    #   has been stopped;
    # - RACKBENCH_OWNER=<pid>:<start time> of the rackbench that started it,
    #   in every child's environment, which its descendants inherit, daemons
    #   that left the process group included (Passenger's watchdog).
    #
    # A survivor is a live process that is provably ours: its pid AND its
    # start time (field 22 of /proc/PID/stat, clock ticks since boot) match a
    # record without a stop line, or it carries the owner mark of a rackbench
    # that no longer runs. A pid reused by the kernel has another start time,
    # so an unrelated process is never touched. `run --resume` stops the
    # survivors of its run directory; `rackbench doctor` those of any run.
    class Journal
      FILE = "processes.jsonl"
      OWNER_VAR = "RACKBENCH_OWNER"

      # This rackbench's mark: "pid:starttime".
      def self.owner
        @owner ||= "#{Process.pid}:#{System::ProcessTree.read_stat(Process.pid)&.starttime}"
      end

      def initialize(dir)
        @path = File.join(dir, FILE)
      end

      def started(pid, argv)
        entry = System::ProcessTree.read_stat(pid)
        write("event" => "start", "pid" => pid, "starttime" => entry&.starttime, "owner" => self.class.owner,
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
        owners = records.map { |r| r["owner"] }.compact.uniq.reject { |o| owner_alive?(o) }
        roots = open.select { |r| owners.include?(r["owner"]) }.filter_map do |r|
          e = System::ProcessTree.read_stat(r["pid"])
          e if e && e.starttime == r["starttime"]
        end
        collect(roots, owners)
      end

      BOOT_VAR = "RACKBENCH_BOOT"

      # Live processes that carry this rackbench's mark and boot's mark
      # (BOOT_VAR, set in one server's environment): what that server's app
      # started and left behind, daemons that left its process group too.
      def self.left_by(boot)
        want = "#{BOOT_VAR}=#{boot}"
        mine = "#{OWNER_VAR}=#{owner}"
        System::ProcessTree.all.select do |e|
          next false if e.pid == Process.pid || System::ProcessTree.zombie?(e.pid)

          env = File.binread("/proc/#{e.pid}/environ").split("\0")
          env.include?(want) && env.include?(mine)
        rescue SystemCallError
          false
        end
      end

      # Live processes marked by any rackbench that no longer runs.
      def self.orphans
        marks = System::ProcessTree.all.filter_map { |e| (m = owner_of(e.pid)) && [e, m] }
        dead = marks.map(&:last).uniq.reject { |o| owner_alive?(o) }
        collect([], dead, marks)
      end

      # TERM to each survivor's group and to itself, KILL after timeout,
      # so a server's workers go with their master. Returns what was stopped.
      def self.stop(entries, timeout: 5)
        escalate("TERM", timeout: timeout, every: 0.05, gone: -> { entries.none? { |e| System::ProcessTree.alive?(e) } }) do |sig|
          sig == "KILL" ? kill(entries) : entries.each { |e| signal(e, sig) }
        end
        entries
      end

      # The one graceful stop, TERM -> wait -> KILL, whoever is stopped
      # (Journal.stop's entries, Child#stop's group): yields sig (the
      # graceful signal) for the caller to send, waits until gone.call is
      # true or timeout seconds have passed (Clock.wait_until, every seconds
      # between looks), then yields "KILL". True when it went in time.
      def self.escalate(sig, timeout:, every:, gone:)
        yield sig
        return true if Clock.wait_until(Clock.now + timeout, every: every, &gone)

        yield "KILL"
        false
      end

      # KILL at once, to those of entries still alive (the one KILL path
      # Journal.stop, Child and Orphans share).
      def self.kill(entries)
        entries.each { |e| signal(e, "KILL") if System::ProcessTree.alive?(e) }
        entries
      end

      def self.describe(entries)
        entries.first(6).map { |e| "#{e.pid} #{System::ProcessTree.cmdline(e.pid)[0, 40].strip}" }.join(", ") +
          (entries.size > 6 ? ", ..." : "")
      end

      def self.collect(roots, owners, marks = nil)
        return [] if roots.empty? && owners.empty?

        all = System::ProcessTree.all
        marks ||= all.filter_map { |e| (m = owner_of(e.pid)) && [e, m] }
        found = roots.flat_map { |r| all.select { |e| e.pgid == r.pid } + System::ProcessTree.tree(r.pid) }
        found += marks.select { |_, m| owners.include?(m) }.map(&:first)
        found.reject { |e| e.pid == Process.pid || System::ProcessTree.zombie?(e.pid) }.uniq(&:pid)
      end

      def self.owner_of(pid)
        File.binread("/proc/#{pid}/environ").split("\0").find { |kv| kv.start_with?("#{OWNER_VAR}=") }&.split("=", 2)&.last
      rescue SystemCallError
        nil
      end

      def self.owner_alive?(owner)
        pid, start = owner.to_s.split(":").map(&:to_i)
        entry = System::ProcessTree.read_stat(pid)
        !entry.nil? && entry.starttime == start
      end

      def self.signal(entry, sig)
        Process.kill(sig, -entry.pid) if entry.pgid == entry.pid
        Process.kill(sig, entry.pid)
      rescue Errno::ESRCH, Errno::EPERM
        nil
      end

      private_class_method :collect, :owner_of, :signal

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
