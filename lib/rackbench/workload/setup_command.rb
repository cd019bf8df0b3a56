# frozen_string_literal: true

require "fileutils"
require_relative "../clock"
require_relative "../process_control/child"

module Rackbench
  module Workload
    # The app's own setup, run before any of its servers boots (issue 44,
    # item 2): what a fresh checkout needs that git does not hold (a
    # database made and migrated, assets, generated files). run --ref and
    # each bisection step run it in every commit's worktree, after its
    # bundle is whole; run without --ref, once in the app's directory.
    #
    # Which command (#choose): the user's (--setup-cmd CMD); none when
    # given "" (--no-setup-cmd); else, for a Rails app with a database
    # (bin/rails and config/database.yml in its root), RAILS_DEFAULT; else
    # none.
    #
    # How (#run): `sh -c CMD`, as the user typed it, in the app's root, with
    # the environment its servers get: the app's own Bundler environment
    # (App#bundle_env: rackbench's BUNDLE_* unset, BUNDLE_GEMFILE the
    # worktree's Gemfile) and App#env (RAILS_ENV and RACK_ENV production,
    # as every boot of the app has them, so db:prepare prepares the
    # database the servers open). Its own process group (ProcessControl::
    # Child), its output appended to log (a run file: never through a
    # link); stopped with TERM, then KILL, at TIMEOUT, and the group always
    # stopped once the command exits, so nothing it started in the
    # background is left running.
    module SetupCommand
      TIMEOUT = 300.0 # seconds (a Rails app's db:prepare with seeds: tens of seconds)
      STOP = 5.0 # seconds between TERM and KILL
      TAIL = 3 # lines of its output a failure quotes
      RAILS_DEFAULT = "bin/rails db:prepare"

      Choice = Struct.new(:command, :default, keyword_init: true)

      # status: the exit status (Integer), or nil when it was killed or timed out.
      Result = Struct.new(:command, :status, :seconds, :said, :tail, keyword_init: true) do
        def ok? = status&.zero? || false
      end

      module_function

      # given: --setup-cmd's value (nil: not given, "": none); nil when
      # nothing is to run.
      def choose(app, given)
        return nil if given && given.strip.empty?
        return Choice.new(command: given, default: false) if given
        return nil unless rails_with_database?(app.root)

        Choice.new(command: RAILS_DEFAULT, default: true)
      end

      def rails_with_database?(root)
        File.file?(File.join(root, "bin", "rails")) && File.file?(File.join(root, "config", "database.yml"))
      end

      # Runs command for app, its output appended to log; a Result.
      def run(app, command, log:, env: ENV, timeout: TIMEOUT)
        FileUtils.mkdir_p(File.dirname(log))
        started = Clock.now
        child = ProcessControl::Child.spawn(["sh", "-c", command], env: app.bundle_env(env).merge(app.env(env)),
                                                                   chdir: app.root, log_path: log)
        begin
          finished = child.wait(timeout)
        ensure
          child.stop("TERM", timeout: STOP) # what it left in its group, or itself at the deadline
        end
        result(child, command, finished, timeout, Clock.now - started, log)
      end

      def result(child, command, finished, timeout, seconds, log)
        status = child.status
        code = finished && status.is_a?(Process::Status) ? status.exitstatus : nil
        said = finished ? child.exit_summary : "did not finish within #{format('%g', timeout)} s (stopped)"
        Result.new(command: command, status: code, seconds: seconds, said: said, tail: tail(log))
      end

      # The last TAIL lines of the log that say something, as one line.
      def tail(log)
        lines = File.read(log).scrub.lines.map(&:strip).reject(&:empty?).last(TAIL)
        text = lines.empty? ? "no output" : lines.join(" | ")
        text.size > 300 ? "...#{text[-297..]}" : text
      rescue SystemCallError
        "no output"
      end
    end
  end
end
