# frozen_string_literal: true

require_relative "error"
require_relative "suggest"
require_relative "version"
require_relative "cli/interrupts"
require_relative "cli/output_failed"
require_relative "cli/resume_trust"
require_relative "process_control/orphans"
require "tmpdir"

module Rackbench
  # The command line as an object a test can call:
  #   Rackbench::CLI.call(argv, out: io, err: io, env: hash) -> exit status
  # Errors meant for the user print one "Error: ..." line on err: exit 2 for
  # bad input, 1 for anything else that stopped the run, 128+N on signal N.
  module CLI
    COMMANDS = {
      "run" => "run a benchmark (setups x endpoints x concurrency levels)",
      "servers" => "list the app servers rackbench can run here, with versions",
      "suites" => "list the built-in suites that reproduce the seed studies (run --suite NAME)",
      "report" => "re-render a stored run directory (table, html, md, csv, json, speedscope)",
      "compare" => "compare two run directories cell by cell: faster, slower, equivalent or undecided",
      "capacity" => "find the highest load each setup sustains within a p99/error SLO",
      "tune" => "find the best server x workers x threads for one endpoint within an SLO and a memory budget",
      "bisect" => "find the commit that made an endpoint slower: each step decided, 5% error over the whole search",
      "gate" => "decide the checked-out commit against a good one, for git bisect run (exit 0 good, 1 bad, 125 skip)",
      "doctor" => "check this machine before benchmarking (wrk, cores, limits, load)"
    }.freeze
    RUNS = %w[run capacity tune bisect gate].freeze # the commands that start servers

    module_function

    # SIGINT, SIGTERM and SIGHUP are guarded for the whole call, the final
    # cleanup and the report included (CLI::Interrupts).
    def call(argv, out: $stdout, err: $stderr, env: ENV)
      Interrupts.guard(err: err) { run_command(argv.dup, out, err, env) }
    end

    # A write to out or err that fails (a closed pipe, a full disk) is an
    # error too, also at the final flush (`> /dev/full`): CLI::OutputFailed.
    def run_command(argv, out, err, env)
      command = argv.shift
      status = case command
               when nil, "help", "-h", "--help" then out.puts(usage) || 0
               when "-v", "--version", "version" then out.puts("rackbench #{VERSION}") || 0
               else dispatch(command, argv, out, err, env)
               end
      out.flush
      status
    rescue Interrupted => e
      interrupted(e, command, err)
    rescue UsageError => e
      say(err, "Error: #{e.message}")
      2
    rescue Error => e
      say(err, "Error: #{e.message}#{kept(e, command)}")
      1
    rescue OutputFailed, *OutputFailed::ERRORS => e
      code, line = OutputFailed.outcome(e, status)
      say(err, line) if line
      code
    rescue StandardError => e
      crash(e, err)
    end

    # A line on err that cannot fail: when err itself is closed or full, the
    # exit status alone tells.
    def say(err, line)
      err.puts line
      err.flush
    rescue IOError, SystemCallError
      nil
    end

    # 128 + signal number, also when the terminal is gone (SIGHUP: writing
    # to it fails with EIO).
    def interrupted(error, command, err)
      say(err, "Interrupted by SIG#{Signal.signame(error.signo)}#{RUNS.include?(command) ? ': servers stopped' : ''}" \
               "#{kept(error, command)}#{cut_short(error, command)}")
      128 + error.signo
    end

    # The trial the signal cut short is not among the kept ones: a resume
    # measures it again (said where the resume command is given).
    def cut_short(error, command)
      trial = error.trial
      return "" unless trial && error.run_dir && command == "run"

      take = trial.take.to_i > 1 ? ", take #{trial.take}" : ""
      "; the trial under way (#{trial.setup.label} #{trial.endpoint} #{trial.level_label}, round #{trial.repetition}#{take}) " \
        "was not stored: the resume measures it again"
    end

    # Where the completed trials are, and how to go on: a run resumes; a
    # capacity search or a tune does not, but its report shows what it measured.
    def kept(error, command)
      dir = error.run_dir or return ""
      go_on = case command
              when "run" then CLI::ResumeTrust.command(dir)
              when "bisect" then "#{CLI::ResumeTrust.bisect_command(dir)} goes on"
              else "rackbench report #{dir} shows them"
              end
      "; completed trials are kept in #{dir} (#{go_on})"
    end

    # A bug in rackbench: still one line on the terminal; the backtrace goes
    # to a file for the bug report. Exit 70 (EX_SOFTWARE).
    def crash(error, err)
      # A private directory (mode 0700, unpredictable name) and an exclusive
      # create that follows no symlink: another user cannot plant or read it.
      path = File.join(Dir.mktmpdir("rackbench-crash-"), "crash.log")
      File.open(path, File::WRONLY | File::CREAT | File::EXCL | File::NOFOLLOW, 0o600) do |f|
        f.write("#{error.class}: #{error.message}\n#{error.backtrace&.join("\n")}\n")
      end
      say(err, "Error: internal error in rackbench (#{error.class}: #{error.message.lines.first&.strip}); " \
               "please report it with #{path}")
      70
    end

    # A command that starts processes adopts their orphans (a daemon that
    # left its parent is re-parented to rackbench, not init), so nothing it
    # started can outlive it unseen (ProcessControl::Orphans).
    def dispatch(command, argv, out, err, env)
      klass = command_class(command)
      return klass.new(out: out, err: err, env: env).call(argv) unless RUNS.include?(command)

      ProcessControl::Orphans.adopting { klass.new(out: out, err: err, env: env).call(argv) }
    end

    def command_class(command)
      unless COMMANDS.key?(command)
        raise UsageError, "unknown command #{command.inspect}#{Suggest.did_you_mean(command, COMMANDS.keys)}; " \
                          "accepted: #{COMMANDS.keys.join(', ')} (rackbench --help)"
      end
      require_relative "cli/#{command}"
      const_get("#{command.capitalize}Command")
    end

    def usage
      lines = COMMANDS.map { |name, text| format("  %-9s %s", name, text) }
      <<~TEXT
        Usage: rackbench COMMAND [options]

        Commands:
        #{lines.join("\n")}

        rackbench COMMAND --help shows a command's options.
        Quick start: rackbench run   (a quick benchmark of six servers on the built-in app)
      TEXT
    end
  end
end
