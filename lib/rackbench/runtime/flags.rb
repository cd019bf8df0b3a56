# frozen_string_literal: true

require_relative "../run_file"

module Rackbench
  module Runtime
    # The environment that makes a setup's runtime flags reach every Ruby
    # process of its server, and the probe that reports what took.
    #
    # Why RUBYOPT and not `ruby --yjit bundle exec puma`: a flag on the first
    # Ruby's command line dies with that process whenever Bundler or a binstub
    # starts a fresh Ruby. Bundler 2.3's `bundle exec` keeps its own process
    # only for a few exact shebangs; this machine's binstubs say
    # `#!/usr/bin/env ruby3.1`, so it execs a new Ruby, and YJIT was off in
    # every bundled app while the label said "on yjit". The environment is
    # inherited across exec and fork alike, and Ruby (>= 3.1) reads --yjit
    # from RUBYOPT. RUBY_YJIT_ENABLE is unset (a user's shell may set it), and
    # a --yjit in an inherited RUBYOPT is dropped, so a setup without the
    # word runs without YJIT. RUBYOPT also loads the probe (in_server_probe.rb),
    # which records YJIT as each process sees it; Check reads those lines.
    # JRuby reads RUBYOPT too but has neither YJIT nor fork: nothing is added.
    module Flags
      PROBE = File.expand_path("in_server_probe.rb", __dir__)
      PROFILE = File.expand_path("in_server_profile.rb", __dir__) # run --profile (Sampling::Profiler)
      PROFILE_VAR = "RACKBENCH_PROFILE_DIR"
      PROFILE_DIR = "profile"
      FILE_VAR = "RACKBENCH_RUNTIME_FILE"
      FILE_NAME = "runtime.jsonl"
      YJIT_SWITCHES = /\A--(yjit|enable[-=]yjit|disable[-=]yjit|yjit-.*)\z/.freeze

      module_function

      # setup: the Setup; dir: the server's log directory (the probe writes
      # FILE_NAME there); rubyopt: the RUBYOPT the server would otherwise get
      # (the app's clean environment unsets it; the built-in arena keeps
      # rackbench's own, e.g. -rbundler/setup); profile: run --profile
      # (in_server_profile.rb loaded too, watching DIR/profile).
      def env(setup, dir:, rubyopt:, profile: false)
        return {} if setup.runtime == "jruby"

        words = rubyopt.to_s.split.grep_v(YJIT_SWITCHES)
        words << "-r#{probe_path}"
        words << "-r#{probe_path(PROFILE)}" if profile
        words << "--yjit" if yjit?(setup)
        env = { "RUBYOPT" => words.join(" "), "RUBY_YJIT_ENABLE" => nil, FILE_VAR => file(dir) }
        profile ? env.merge(PROFILE_VAR => profile_dir(dir)) : env
      end

      def profile_dir(dir)
        File.join(dir, PROFILE_DIR)
      end

      def yjit?(setup)
        setup.runtime == "yjit"
      end

      def file(dir)
        File.join(dir, FILE_NAME)
      end

      # RUBYOPT splits on white space, so the probe's path must hold none: a
      # copy in a private temporary directory when rackbench's own does.
      def probe_path(source = PROBE)
        return source unless source.match?(/\s/)

        require "tmpdir"
        dir = File.join(Dir.tmpdir, "rackbench-probe-#{Process.uid}")
        Dir.mkdir(dir, 0o700) unless File.directory?(dir)
        File.join(dir, File.basename(source)).tap { |copy| RunFile.replace(copy, File.read(source)) }
      end
    end
  end
end
