# frozen_string_literal: true

require_relative "../../error"
require_relative "../flags"

module Rackbench
  module Config
    module Rules
      # --setup-cmd CMD and --fetch-gems (Workload::SetupCommand,
      # Workload::BundleInstall): a setup runs in the directory of an app
      # rackbench boots, so it needs --app PATH and no --url; --fetch-gems
      # installs a --ref commit's gems, so it needs refs.
      module SetupCmd
        ORDER = 70 # Config::RULES runs the rules by ORDER (plan/config.rb)
        # Their flags (run, and each step of bisect and gate: CLI::StepOptions).
        Flags.declare :setup_cmd, "--[no-]setup-cmd [CMD]", "a shell command run (sh -c, in the app's bundle) in each commit's " \
                                                            "worktree before any boot (run without --ref: once, in --app's " \
                                                            "directory); one that fails refuses the commit; --no-setup-cmd: none",
                      rule: "for a commit of a Rails app with config/database.yml, bin/rails db:prepare", owner: self,
                      parse: ->(v) { v == false ? "" : v || raise(UsageError, "--setup-cmd needs a command, e.g. --setup-cmd 'bin/setup'") }
        Flags.declare :fetch_gems, "--fetch-gems", "with --ref: gems a commit's lock names that are not on this machine are " \
                                                   "installed by `bundle install` from the Gemfile's sources (the network)",
                      parse: ->(_) { true }, owner: self

        module_function

        def check(cfg)
          cmd = cfg[:setup_cmd]
          raise UsageError, "--setup-cmd takes a command as text, e.g. --setup-cmd 'bin/setup' (got #{cmd.inspect})" \
            unless cmd.nil? || cmd.is_a?(String)

          given = !cmd.to_s.strip.empty?
          raise UsageError, "--setup-cmd runs in your app's directory; the server at --url is not one rackbench boots: drop it" \
            if given && cfg[:url]
          raise UsageError, "--setup-cmd runs in your app's directory: give --app PATH (the built-in arena needs no setup)" \
            if given && [nil, "arena"].include?(cfg[:app])
          return unless cfg[:fetch_gems] && Array(cfg[:refs]).empty?

          raise UsageError, "--fetch-gems installs the gems a --ref commit's Gemfile.lock names: add --ref BASE --ref HEAD " \
                            "(for your app's own bundle, run `bundle install` in it)"
        end
      end
    end
  end
end
