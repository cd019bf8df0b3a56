# frozen_string_literal: true

require_relative "../error"
require_relative "../runtime/jruby"
require_relative "../server"
require_relative "../workload/app"

module Rackbench
  module CLI
    # Before a run boots anything: setups "on jruby" need Java, a complete
    # JRuby home with their server's -java gem (the adapter each server
    # registered for JRuby, e.g. PumaJruby), and the built-in arena app (a
    # user's bundle is MRI's: its gems were never installed for JRuby).
    module JrubyCheck
      module_function

      def check!(setups, app, runtime: Runtime::Jruby.default)
        jruby = setups.select { |s| s.runtime == "jruby" }
        return if jruby.empty?

        runtime.check!
        jruby.map(&:server).uniq.each do |key|
          adapter = Server::ADAPTERS.fetch(key).runtime_adapters.fetch("jruby").new(runtime: runtime)
          raise UsageError, "setups \"on jruby\" cannot run: #{adapter.install_hint}" unless adapter.available?
        end
        return if app.arena?

        whose = if app.root == Workload::App::RAILS_APP
                  "the Rails workload's bundle is MRI's: its sqlite3 gem is a C extension, and on JRuby /articles would " \
                  "need activerecord-jdbcsqlite3-adapter"
                else
                  "your app's bundle is installed for MRI"
                end
        raise UsageError, "setup #{jruby.first.label.inspect}: only the built-in arena app runs on JRuby here " \
                          "(#{whose}); drop --app or the \"on jruby\" setups"
      end

      # meta.json's record of the JRuby a run used ({} without jruby setups).
      def meta(setups, runtime: Runtime::Jruby.default)
        return {} unless setups.any? { |s| s.runtime == "jruby" }

        servers = Server.on_runtime("jruby").to_h { |key| [key, runtime.gem_version(key)] }
        { "jruby" => { "version" => runtime.version, "java" => runtime.java_version, "home" => runtime.home,
                       **servers, "rack" => runtime.gem_version("rack") } }
      end
    end
  end
end
