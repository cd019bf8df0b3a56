# frozen_string_literal: true

require_relative "../error"
require_relative "../workload/setup_command"

module Rackbench
  class Runner
    # The app's setup command (Workload::SetupCommand) before the first
    # boot: for each --ref commit in its worktree (the Rails default
    # included), or once for the app itself when --setup-cmd is given
    # without --ref. Each command run is said in a note and recorded in
    # meta.json's "setup_commands" (the ref, the command, whether it was the
    # default, its exit status, seconds and log); one that fails refuses the
    # app in one line (UsageError, exit 2; a bisection skips the commit),
    # naming the ref, the command, its exit status and its last lines.
    class AppSetup
      def initialize(config:, store:, listener:, env: ENV)
        @config = config
        @store = store
        @listener = listener
        @env = env
      end

      # app: the ref's (or the app's own) Workload::App; log_dir: where its
      # setup.log goes; who: "--ref main (1a2b3c4)", or nil for the app
      # itself (only an explicit --setup-cmd runs there).
      def call(app, log_dir, who: nil, ref: nil)
        choice = who ? Workload::SetupCommand.choose(app, @config[:setup_cmd]) : explicit
        return unless choice

        log = File.join(log_dir, "setup.log")
        result = Workload::SetupCommand.run(app, choice.command, log: log, env: @env)
        record(ref, choice, result, log)
        raise UsageError, refusal(who, choice, result, log) unless result.ok?

        @listener.note("#{who || '--app'}: #{named(choice)} #{result.said} in #{result.seconds.round(1)} s before any boot " \
                       "(log: #{relative(log)})#{choice.default ? DEFAULT_WORDS : ''}")
      end

      DEFAULT_WORDS = "; the default for a Rails app with config/database.yml: --setup-cmd CMD runs another command, " \
                      "--no-setup-cmd none"

      private

      def explicit
        cmd = @config[:setup_cmd].to_s
        cmd.empty? ? nil : Workload::SetupCommand::Choice.new(command: cmd, default: false)
      end

      def named(choice)
        choice.default ? "setup `#{choice.command}`" : "--setup-cmd `#{choice.command}`"
      end

      def refusal(who, choice, result, log)
        fix = choice.default ? "fix the app's setup, give --setup-cmd CMD, or --no-setup-cmd to run none" : "fix the command"
        "#{who || '--app'}: #{named(choice)} #{result.said} (#{result.tail}; log: #{log}), so the app cannot be " \
          "measured there: #{fix}"
      end

      def record(ref, choice, result, log)
        meta = @store.meta
        (meta["setup_commands"] ||= []) << { "ref" => ref&.label, "sha" => ref&.sha, "command" => choice.command,
                                             "default" => choice.default, "exit_status" => result.status,
                                             "seconds" => result.seconds.round(3), "log" => relative(log) }
        @store.write_meta(meta)
      end

      def relative(log) = log.delete_prefix("#{@store.path}/")
    end
  end
end
