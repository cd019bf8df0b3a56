# frozen_string_literal: true

require_relative "puma"
require_relative "../runtime/jruby"

module Rackbench
  module Server
    # Puma on JRuby: "puma x1:T on jruby" (single mode; the setup refuses
    # cluster mode, JRuby cannot fork). Runs through JRuby's launcher, which
    # execs java: the pid started is the JVM that owns the port, and TERM
    # stops it gracefully. The JVM's socket is IPv6 with a v4-mapped address
    # (::ffff:127.0.0.1), found in /proc/net/tcp6 by System::Sockets.
    # Puma's -java gem and rack come from JRuby's own GEM_HOME.
    class PumaJruby < Puma
      register_runtime "jruby", of: Puma

      def self.only_one_process? = true # JRuby cannot fork: no cluster mode
      def self.no_tls = "Puma on JRuby takes its certificate from a Java keystore, which rackbench does not make"
      def initialize(app: nil, runtime: Runtime::Jruby.default)
        super(app: app)
        @runtime = runtime
      end

      attr_reader :runtime

      def version
        @runtime.gem_version(gem_name)
      end

      def available?
        @runtime.problem.nil? && !version.nil?
      end

      def install_hint
        @runtime.problem || "Puma is missing from JRuby's gems (#{@runtime.gem_home}): #{Runtime::Jruby::INSTALL}"
      end

      def env(setup)
        super.merge(@runtime.env)
      end

      def runs_one_process?(_setup)
        true
      end

      private

      def launch(setup = nil, name = key)
        @runtime.command(gem_name, name, heap: setup&.heap)
      end
    end
  end
end
