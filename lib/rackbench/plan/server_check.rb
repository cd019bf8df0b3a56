# frozen_string_literal: true

require_relative "../error"
require_relative "../server"
require_relative "../workload/app"
require_relative "../workload/bundle_check"
require_relative "../workload/profile_check"
require_relative "../server/gem_pins"

module Rackbench
  # Before anything boots (run, capacity, tune): the servers a command will
  # start can start, and the app's bundle is installed. The default plan's
  # runnable servers are settled in the settings' build (Config::Settle::
  # Servers calls `planned`); the rest are checks that change nothing.
  #
  # - Servers asked for by name that cannot run are refused together, in
  #   one line (exit 2): those the app's bundle lacks with the Gemfile
  #   lines to add (Server::GemPins: rackbench's own versions), the others
  #   with their own install hint.
  # - Servers of the default plan that cannot run are left out, and the
  #   same line says so (a warning of the run): never dropped in silence.
  # - The app's Gemfile has no lock, or its lock names gems not installed
  #   (Workload::BundleCheck): one line, exit 2.
  # - A setup's own words the installed server lacks ("puma x2:5 io:4" on
  #   a Puma before 8.0: Server::Base#unsupported): one line, exit 2.
  module ServerCheck
    module_function

    # The default plan's servers that can run with config's app: [their
    # keys, a warning naming those left out or nil]; --tls leaves out those
    # that serve no TLS. Refused (UsageError) when none can, or when the
    # app's Gemfile has no lock.
    def planned(config, servers)
      app = Workload::App.resolve(config[:app])
      unlocked!(app)
      keys, warning = defaults(servers, app)
      config[:tls] ? tls_only(keys, warning) : [keys, warning]
    end

    # For a command that takes --setup, on built settings (the default plan
    # already settled: planned): the setups asked for can run, --profile can
    # load, and the app's bundle is installed. Changes nothing.
    def check!(config, env: ENV)
      return unless config[:url].nil?

      app = Workload::App.resolve(config[:app])
      unlocked!(app)
      requested!(config[:setups].reject { |s| s.runtime == "jruby" }.map(&:server), app) # JrubyCheck checks the others
      words!(config[:setups], app, cpus: config[:cpus])
      profile!(app) if config[:profile] # read from the lock: before `bundle check`'s process
      stale!(app, env: env)
    end

    # --tls with the default plan: its servers that serve no TLS of their
    # own are left out, named with the reason in the run's warning.
    def tls_only(keys, warning)
      without = keys.reject { |k| Server::ADAPTERS[k].no_tls.nil? }
      raise UsageError, "--tls: no server of the default plan serves TLS here; give setups \"behind nginx\"" if without.size == keys.size
      return [keys, warning] if without.empty?

      note = "left out for --tls: #{without.map { |k| "#{k} (#{Server::ADAPTERS[k].no_tls[/\A[^:(]+/].strip})" }.join(', ')}"
      [keys - without, [warning, note].compact.join("; ")]
    end

    # Refuses every server of keys that cannot run with app, at once.
    def requested!(keys, app)
      unlocked!(app)
      line = problem(missing(keys, app), app)
      raise UsageError, line if line
    end

    # [the keys that can run, a warning naming those left out or nil];
    # none left: refused.
    def defaults(keys, app)
      unlocked!(app)
      gone = missing(keys, app)
      line = problem(gone, app)
      return [keys, nil] unless line
      raise UsageError, "no server of the default plan can run: #{line}" if gone.size == keys.size

      [keys - gone, "left out of this run: #{line}"]
    end

    # The first setup whose words its server's installed version cannot run.
    def words!(setups, app, cpus: nil)
      setups.each do |setup|
        adapter = Server.adapter(setup.server, app: app, runtime: setup.runtime == "jruby" ? "jruby" : nil)
        line = adapter.available? && adapter.unsupported(setup, cpus: cpus)
        raise UsageError, line if line
      end
    end

    def unlocked!(app)
      line = Workload::BundleCheck.unlocked_problem(app)
      raise UsageError, line if line
    end

    # --profile: stackprof must load in the app's bundle (Workload::ProfileCheck).
    def profile!(app)
      line = Workload::ProfileCheck.problem(app)
      raise UsageError, line if line
    end

    def stale!(app, env: ENV)
      line = Workload::BundleCheck.problem(app, env: env)
      raise UsageError, line if line
    end

    def missing(keys, app)
      keys.uniq.reject { |key| Server.adapter(key, app: app).available? }
    end

    # One line for the missing servers: those the app's bundle lacks
    # grouped with the Gemfile lines that add them, then any other (a
    # Debian package, rackbench's own setup) with its own hint.
    def problem(keys, app)
      return nil if keys.empty?

      adapters = keys.map { |key| Server.adapter(key, app: app) }
      pinned, other = adapters.partition { |a| app.bundled? && Server::GemPins::PINS.key?(a.gem_name) }
      where = app.bundled? ? "" : " here"
      parts = other.map { |a| "#{a.key} is not installed#{where}: #{a.install_hint}" }
      parts.unshift("not in your app's bundle: #{pinned.map(&:key).join(', ')} — #{Server::GemPins.hint(pinned.map(&:gem_name), app)}") if pinned.any?
      parts.join("; ")
    end
  end
end
