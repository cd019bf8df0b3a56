# frozen_string_literal: true

require "json"
require "rbconfig"
require "fileutils"

module Rackbench
  # The suite in lanes (`rake test:lanes`, docs/development.md): most of the
  # suite's time is spent waiting (a boot's readiness polls, a trial's fixed
  # seconds of load at one or two connections, a graceful stop): measured
  # here, `rake test` kept the 2-core machine's CPU 33% busy on average. So
  # its files run in LANES processes side by side, then the files whose
  # checks need the CPU to themselves (the calm files: physics bands,
  # verdicts, decisions, knee searches) run alone, one process, nothing
  # beside them. Each lane is a whole minitest process with its own leak
  # check (test_helper), its own seed and its own log.
  module Lanes
    # Seconds a file took when it is not in the timings file: a middling one.
    DEFAULT_SECONDS = 5.0
    TIMES = File.expand_path("../lane_times.json", __dir__)
    # A lane interrupted (Ctrl-C) gets INT (minitest ends the test it runs and
    # its teardowns stop what it booted), then KILL after this many seconds.
    GRACE = 20
    # A lane still running after this many seconds has hung: it is
    # interrupted and fails (the whole suite takes under half an hour here).
    DEADLINE = Integer(ENV.fetch("LANE_DEADLINE", "1800"), 10)
    TOTALS = /^\d+ runs, \d+ assertions, \d+ failures, \d+ errors, \d+ skips$/.freeze

    module_function

    # Seconds per file, measured (test/lane_times.json); {} without it.
    def seconds
      File.file?(TIMES) ? JSON.parse(File.read(TIMES)) : {}
    end

    # Longest processing time first (Graham 1969): each file, the longest
    # first, goes to the lane with the fewest seconds so far. Empty lanes are
    # dropped; each lane's files keep the order given.
    def partition(files, lanes, times = seconds)
      bins = Array.new([lanes, 1].max) { [0.0, []] }
      files.sort_by { |f| [-times.fetch(f, DEFAULT_SECONDS), f] }.each do |f|
        bin = bins.min_by(&:first)
        bin[0] += times.fetch(f, DEFAULT_SECONDS)
        bin[1] << f
      end
      bins.map { |_, fs| fs.sort_by { |f| files.index(f) } }.reject(&:empty?)
    end

    # Runs each group of files as its own `ruby` process in its own process
    # group, side by side, output to LOG_DIR/NAME.log, and waits for all.
    # Returns one Hash a lane: name, files, log, ok, seconds.
    def run(groups, log_dir:, names:, opts: [])
      FileUtils.mkdir_p(log_dir)
      started = groups.each_with_index.map do |files, i|
        log = File.join(log_dir, "#{names[i]}.log")
        t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        pid = Process.spawn({ "RACKBENCH_LANE_FILES" => files.join("\n") }, RbConfig.ruby, "-Ilib", "-Itest", "-e",
                            'ENV.delete("RACKBENCH_LANE_FILES").split("\n").each { |f| require File.expand_path(f) }',
                            "--", *opts, out: log, err: %i[child out], pgroup: true)
        { name: names[i], files: files, log: log, pid: pid, t0: t0 }
      end
      wait_all(started)
    end

    # Waits for every lane, within DEADLINE seconds of its start: a lane
    # still running then is interrupted as Ctrl-C would (INT, KILL after
    # GRACE) and fails, its log saying how far it got.
    def wait_all(lanes)
      previous = trap("INT") { interrupt(lanes) }
      done = {}
      until done.size == lanes.size
        lanes.each do |lane|
          next if done[lane[:pid]]

          pid, status = Process.wait2(lane[:pid], Process::WNOHANG)
          if pid
            seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - lane[:t0]
            done[lane[:pid]] = lane.merge(ok: status.success?, seconds: seconds).tap { |l| puts summary(l) }
          elsif Process.clock_gettime(Process::CLOCK_MONOTONIC) - lane[:t0] > DEADLINE && !lane[:late]
            lane[:late] = true
            warn "rake test:lanes: #{lane[:name]} still ran after #{DEADLINE} s: interrupted (its log: #{lane[:log]})"
            interrupt([lane])
          end
        end
        sleep 0.5 unless done.size == lanes.size
      end
      lanes.map { |lane| done.fetch(lane[:pid]) }
    ensure
      trap("INT", previous || "DEFAULT")
    end

    # Ctrl-C: INT to every lane's group, KILL to those left after GRACE.
    def interrupt(lanes)
      signal(lanes, "INT")
      Thread.new do
        sleep GRACE
        signal(lanes, "KILL")
      end
    end

    def signal(lanes, sig)
      lanes.each do |l|
        Process.kill(sig, -l[:pid])
      rescue Errno::ESRCH, Errno::EPERM
        nil
      end
    end

    # One line a lane: its minitest totals, its time and its log.
    def summary(lane)
      text = File.read(lane[:log])
      totals = text.scan(TOTALS).last || "no totals (it ended early)"
      "#{lane[:ok] ? 'passed' : 'FAILED'}: #{lane[:name]} (#{lane[:files].size} files, #{lane[:seconds].round} s): #{totals}; log #{lane[:log]}"
    end

    # The lanes' minitest totals summed, in minitest's own words ("N runs,
    # ... S skips"); a lane that printed none (it ended early) is named.
    def totals(lanes)
      sums = [0] * 5
      early = []
      lanes.each do |lane|
        line = File.read(lane[:log]).scan(TOTALS).last
        line ? line.scan(/\d+/).map(&:to_i).each_with_index { |n, i| sums[i] += n } : early << lane[:name]
      end
      text = format("%d runs, %d assertions, %d failures, %d errors, %d skips", *sums)
      early.empty? ? text : "#{text} (no totals from #{early.join(', ')}: ended early)"
    end

    # The failures of the lanes that failed, as minitest printed them.
    def failures(lanes)
      lanes.reject { |l| l[:ok] }.map do |l|
        text = File.read(l[:log])
        body = text[/^(?:\s*\d+\) (?:Failure|Error):.*)/m] || text.lines.last(60).join
        "=== #{l[:name]} (#{l[:log]})\n#{body}"
      end
    end
  end
end
