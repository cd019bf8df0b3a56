# frozen_string_literal: true

require "rbconfig"
require "timeout"
require "tmpdir"
require "fileutils"
require "rackbench/clock"
require "rackbench/system/process_tree"
require "rackbench/system/sockets"

module Rackbench
  # Runs rackbench as a user does: `bundle exec rackbench ...` as a real
  # process in its own process group, from a working directory of the
  # test's choosing (a fresh temporary one, so relative paths are relative to
  # it), with the user's environment (rackbench's Gemfile named, nothing of
  # the test's own bundle leaking in), plus what the user exported in that
  # shell (env:, e.g. SECRET_KEY_BASE). stdout and stderr are read as a user
  # reads them, whole.
  class UserShell
    ROOT = File.expand_path("../..", __dir__)
    EXE = File.join(ROOT, "exe", "rackbench")
    LEAKY = /\A(BUNDLE_|BUNDLER_|RUBYOPT\z|RUBYLIB\z)/.freeze

    Result = Struct.new(:status, :stdout, :stderr, keyword_init: true)

    attr_reader :cwd

    # clone: cwd is a checkout of its own (a fresh clone): #sh runs its
    # command lines there with no Gemfile named, so `bundle exec` finds the
    # clone's, as in a user's shell opened in it.
    def initialize(cwd, env: {}, clone: false)
      @cwd = cwd
      @exported = env
      @clone = clone
    end

    def env
      gemfile = @clone ? {} : { "BUNDLE_GEMFILE" => File.join(ROOT, "Gemfile") }
      ENV.keys.grep(LEAKY).to_h { |k| [k, nil] }.merge(gemfile).merge(@exported)
    end

    def argv(args)
      return ["bash", "-c", @line] if @line

      [RbConfig.ruby, Gem.bin_path("bundler", "bundle"), "exec", EXE, *args.map(&:to_s)]
    end

    # A command line as the user types it (a README line), run by bash in cwd.
    def sh(line, timeout: 600)
      @line = line
      run(timeout: timeout)
    ensure
      @line = nil
    end

    # Runs to the end (or the timeout: then the whole group is killed and
    # the test fails); returns status, stdout, stderr.
    def run(*args, timeout: 600)
      start(*args)
      wait(timeout: timeout)
    end

    # Starts in the background: poll #stderr, send #signal, then #wait.
    def start(*args)
      @logs = Dir.mktmpdir("rackbench-shell")
      @out = File.join(@logs, "stdout")
      @err = File.join(@logs, "stderr")
      @status = nil
      @pid = Process.spawn(env, *argv(args), chdir: @cwd, out: @out, err: @err, in: File::NULL, pgroup: true)
      @started = Clock.now
      self
    end

    def stderr
      File.exist?(@err.to_s) ? File.read(@err) : ""
    end

    def stdout
      File.exist?(@out.to_s) ? File.read(@out) : ""
    end

    def signal(sig)
      Process.kill(sig, @pid)
    end

    def wait_for_stderr(pattern, timeout: 120)
      deadline = Clock.now + timeout
      until stderr.match?(pattern)
        raise "rackbench exited before #{pattern.inspect} appeared; stderr:\n#{stderr}" if exited?
        raise "timed out waiting for #{pattern.inspect}; stderr:\n#{stderr}" if Clock.now > deadline

        sleep 0.05
      end
    end

    def exited?
      @status ||= Process.wait2(@pid, Process::WNOHANG)&.last
      !@status.nil?
    end

    def wait(timeout: 600)
      @status ||= Timeout.timeout(timeout) { Process.wait2(@pid).last }
      Result.new(status: @status.exitstatus || (128 + @status.termsig), stdout: stdout, stderr: stderr)
    rescue Timeout::Error
      kill_group
      raise "rackbench #{@pid} still running after #{timeout} s; stderr:\n#{stderr}"
    ensure
      FileUtils.rm_rf(@logs) if @logs && @status
    end

    def kill_group
      Process.kill("KILL", -@pid)
      Process.wait(@pid)
    rescue Errno::ESRCH, Errno::ECHILD
      nil
    end
  end
end
