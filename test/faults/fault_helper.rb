# frozen_string_literal: true

require "test_helper"
require "json"
require "rbconfig"
require "rackbench/system/process_tree"
require "rackbench/system/sockets"
require "rackbench/clock"
require "socket"

module Rackbench
  # Runs rackbench as a real process so faults can be injected with real
  # signals. While it runs, every process in its tree is remembered, so after
  # it exits the test can prove none of them is left running or listening.
  class RackbenchProcess
    EXE = File.expand_path("../../exe/rackbench", __dir__)

    attr_reader :pid, :status

    # stdout, stderr: where they go instead of files (a pipe's writer, [:child, :out]).
    # prefix: a command rackbench runs under (setpriv ..., to run as another user).
    def initialize(*args, env: {}, dir:, stdout: nil, stderr: nil, prefix: [])
      @out = File.join(dir, "stdout.txt")
      @err = File.join(dir, "stderr.txt")
      @pid = Process.spawn(env, *prefix, RbConfig.ruby, EXE, *args.map(&:to_s), out: stdout || @out, err: stderr || @err,
                                                                                 in: File::NULL, pgroup: true)
      @seen = {}
      @status = nil
    end

    # Polls until the block is true (remembering the process tree meanwhile).
    def wait_until(timeout: 60, &condition)
      deadline = Clock.now + timeout
      until condition.call
        raise "rackbench exited before the condition (#{exit_code}): #{stderr}" if exited?
        raise "timed out waiting; stderr: #{stderr}" if Clock.now > deadline

        remember
        sleep 0.05
      end
      remember
    end

    def wait(timeout: 120)
      wait_until(timeout: timeout) { exited? }
    rescue RuntimeError => e
      raise unless exited?

      e
    ensure
      exit_code
    end

    def exited?
      return true if @status

      _, @status = Process.wait2(@pid, Process::WNOHANG)
      !@status.nil?
    end

    def exit_code
      return nil unless exited?

      @status.exitstatus || (128 + @status.termsig)
    end

    def signal(sig)
      Process.kill(sig, @pid)
    end

    def stderr
      File.exist?(@err) ? File.read(@err) : ""
    end

    def stdout
      File.exist?(@out) ? File.read(@out) : ""
    end

    def descendants
      remember
      @seen.values.reject { |e| e.pid == @pid }
    end

    # True while a trial's load runs: a wrk started against a URL. rackbench
    # also runs `wrk --version` before it boots anything (the run's
    # manifest), and a signal timed from that one lands during the boot.
    def load_running?
      descendants.any? do |e|
        e.comm == "wrk" && System::ProcessTree.alive?(e) && System::ProcessTree.cmdline(e.pid).include?("http")
      end
    end

    def survivors
      @seen.values.select { |e| e.pid != @pid && System::ProcessTree.alive?(e) }
    end

    def listening_ports
      System::Sockets.ports_of(survivors.map(&:pid))
    end

    # Last resort so a failing test leaves nothing behind either.
    def kill_everything
      (survivors.map(&:pid) + [exited? ? nil : @pid]).compact.each do |pid|
        Process.kill("KILL", pid)
      rescue Errno::ESRCH
        nil
      end
      Process.wait(@pid) unless exited?
    rescue Errno::ECHILD
      nil
    end

    private

    def remember
      System::ProcessTree.tree(@pid).each { |e| @seen[[e.pid, e.starttime]] ||= e }
    end
  end

  # Assertions every fault case makes.
  module FaultAssertions
    def start_rackbench(*args, env: {}, **stdio)
      @rb = RackbenchProcess.new(*args, env: env, dir: tmpdir, **stdio)
    end

    def teardown
      @rb&.kill_everything
      super
    end

    def read_trials(dir)
      path = File.join(dir, "trials.jsonl")
      return [] unless File.exist?(path)

      File.readlines(path).map { |line| JSON.parse(line) } # raises if any line is half-written
    end

    def read_setups(dir)
      path = File.join(dir, "setups.jsonl")
      File.exist?(path) ? File.readlines(path).map { |l| JSON.parse(l) } : []
    end

    # The three things every case asserts: the exit status, what the user is
    # told, and that nothing is left running or listening.
    #
    # What the user is told, one of:
    # - message: the line this fault gives, a Regexp that exactly one line of
    #   the stream `on` (:stderr, or :stdout where a run's summary names a
    #   failed setup) matches. An "Error:" or "Interrupted" line on stderr is
    #   the only such line there; any other fault gives none.
    # - silent: why this case rightly gives no line (a recovery that ends as
    #   a clean run, or a fault the run's own files record): then stderr has
    #   no Error/Interrupted line and neither stream a FAILED line.
    def assert_fault_outcome(exit_code:, message: nil, on: :stderr, silent: nil, run_dir: nil, min_trials: 0)
      raise ArgumentError, "give the fault's message: /.../ or silent: \"why there is none\"" unless message.nil? ^ silent.nil?

      @rb.wait
      assert_equal exit_code, @rb.exit_code, "stderr: #{@rb.stderr}"
      assert_told(message, on) if message
      assert_quiet if silent
      refute_match(/^\s+from .*:\d+:in /, @rb.stderr, "no stack trace")
      assert_operator read_trials(run_dir).size, :>=, min_trials if run_dir
      assert_empty @rb.survivors.map { |e| "#{e.pid} #{System::ProcessTree.cmdline(e.pid)}" }, "processes left running"
      assert_empty @rb.listening_ports, "ports left listening"
    end

    private

    ERROR_LINE = /\A(Error|Interrupted)/.freeze

    def assert_told(message, stream)
      text = stream == :stdout ? @rb.stdout : @rb.stderr
      matching = text.lines.grep(message)
      assert_equal 1, matching.size, "one line matching #{message.inspect} expected on #{stream}:\n#{text}"
      errors = @rb.stderr.lines.grep(ERROR_LINE)
      if stream == :stderr && matching.first.match?(ERROR_LINE)
        assert_equal 1, errors.size, "one error line expected in: #{@rb.stderr}"
      else
        assert_empty errors, "no error line for a fault the run handled"
      end
    end

    def assert_quiet
      assert_empty @rb.stderr.lines.grep(ERROR_LINE), "no error line: #{@rb.stderr}"
      assert_empty (@rb.stdout + @rb.stderr).lines.grep(/\bFAILED\b/), "no FAILED line"
    end
  end
end

Minitest::Test.include(Rackbench::FaultAssertions)

Minitest.after_run do
  cases = Minitest::Runnable.runnables.select { |r| r.name.start_with?("Fault") }.sum { |r| r.runnable_methods.size }
  puts "Fault suite: #{cases} cases run." if cases.positive? # test/integration/signals_test.rb uses this helper too
end
