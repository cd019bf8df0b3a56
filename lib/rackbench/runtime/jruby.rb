# frozen_string_literal: true

require_relative "../error"

module Rackbench
  module Runtime
    # The JRuby that setups "... on jruby" run on: built by bin/setup-jruby
    # from the jruby-jars gem into vendor/jruby/ (a directory rackbench owns;
    # the system Ruby is untouched), on Debian's openjdk-17-jre-headless.
    #
    # JRuby >= 9.4.9.0 is needed: Puma >= 5 calls getsockopt(TCP_INFO) before
    # each response, and older JRubys passed the kernel an uninitialised
    # length (jruby/jruby#8362), failing at random with "arraycopy: last
    # source index 280 out of bounds for byte[256]".
    #
    # Puma 6.6.1 rather than 8.x: Puma 8.0.2 on JRuby closes live keep-alive
    # connections without answering (its eager read after each response,
    # Client#eagerly_finish, sees end-of-file on them), which wrk counts as
    # read errors; 6.6.1 saw none (README, "Puma on JRuby").
    #
    # RACKBENCH_JRUBY_HOME replaces the JRuby home (its GEM_HOME is then
    # JRUBY_HOME/../gems-VERSION), for a JRuby installed elsewhere.
    class Jruby
      JRUBY_VERSION = "9.4.15.0"
      PUMA_VERSION = "6.6.1"
      RACK_VERSION = "2.2.22"
      ROOT = File.expand_path("../../../vendor/jruby", __dir__)
      INSTALL = "run bin/setup (it installs JRuby #{JRUBY_VERSION} into vendor/jruby)"
      JAVA_INSTALL = "apt-get install -y openjdk-17-jre-headless"
      # Variables of rackbench's own Ruby and Bundler that must not reach JRuby.
      LEAKY = %w[BUNDLE_GEMFILE BUNDLE_BIN_PATH BUNDLER_VERSION BUNDLER_SETUP BUNDLE_PATH BUNDLE_APP_CONFIG
                 RUBYOPT RUBYLIB JRUBY_OPTS JAVA_OPTS].freeze

      def self.default(env = ENV)
        home = env["RACKBENCH_JRUBY_HOME"]
        home ? new(home: File.expand_path(home), gem_home: File.expand_path("../gems-#{JRUBY_VERSION}", home)) : new
      end

      attr_reader :home, :gem_home

      def initialize(home: File.join(ROOT, JRUBY_VERSION), gem_home: File.join(ROOT, "gems-#{JRUBY_VERSION}"),
                     java: "java")
        @home = home
        @gem_home = gem_home
        @java = java
      end

      def launcher
        File.join(@home, "bin", "jruby")
      end

      # "9.4.15.0" when the home is complete, else nil.
      def version
        problem.nil? ? JRUBY_VERSION : nil
      end

      # "17.0.15" from `java -version`, nil without Java.
      def java_version
        return @java_version if defined?(@java_version)

        out = IO.popen([@java, "-version", { err: %i[child out] }], &:read)
        @java_version = out[/version "([^"]+)"/, 1]
      rescue SystemCallError
        @java_version = nil
      end

      # The version of a gem in JRuby's GEM_HOME ("6.6.1"), nil when absent.
      def gem_version(name)
        specs = Dir.glob(File.join(@gem_home, "specifications", "#{name}-[0-9]*.gemspec"))
        versions = specs.filter_map { |s| File.basename(s, ".gemspec").delete_prefix("#{name}-")[/\A[\d.]+/] }
        versions.max_by { |v| Gem::Version.new(v) }
      end

      # nil when JRuby can run here, else one line: what is wrong; what to do.
      def problem
        return "Java is not installed (JRuby runs on it): run #{JAVA_INSTALL}" if java_version.nil?
        return "JRuby is not installed (#{@home} is missing): #{install}" unless File.directory?(@home)

        missing = %w[lib/jruby.jar bin/jruby bin/.jruby.module_opts].reject { |f| File.file?(File.join(@home, f)) }
        return "the JRuby home #{@home} is incomplete (no #{missing.join(', ')}): #{reinstall}" if missing.any?
        return "the JRuby launcher #{launcher} is not executable: #{reinstall}" unless File.executable?(launcher)

        nil
      end

      def check!
        why = problem
        raise UsageError, "setups \"on jruby\" cannot run: #{why}" if why
      end

      # The command that runs a gem's executable on JRuby: the launcher execs
      # java, so the pid started is the JVM itself. heap: "512m" or nil.
      def command(gem_name, bin, heap: nil)
        [launcher, *(heap ? ["-J-Xmx#{heap}"] : []), File.join(@gem_home, "gems", "#{gem_name}-#{gem_version(gem_name)}-java", "bin", bin)]
      end

      # The child's environment: JRuby's own gems, nothing of rackbench's bundle.
      def env
        LEAKY.to_h { |k| [k, nil] }.merge("GEM_HOME" => @gem_home, "GEM_PATH" => @gem_home, "JRUBY_HOME" => nil)
      end

      private

      def own?
        @home.start_with?(ROOT)
      end

      def install
        own? ? INSTALL : "point RACKBENCH_JRUBY_HOME at a JRuby home, or unset it to use the one bin/setup installs"
      end

      def reinstall
        own? ? "remove it and #{INSTALL}" : "reinstall it, or unset RACKBENCH_JRUBY_HOME to use the one bin/setup installs"
      end
    end
  end
end
