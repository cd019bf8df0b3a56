# frozen_string_literal: true

require "rbconfig"
require_relative "registry"
require_relative "gem_pins"
require_relative "../workload/app_bundler"

module Rackbench
  module Server
    # The contract every server adapter answers (tested for all of them by
    # test/support/server_contract.rb, like Rack::Lint for servers):
    #
    #   key                     "puma"
    #   gem_name                the gem that provides it
    #   graceful_signal         what stops it after in-flight requests finish
    #   graceful_to_master?     the graceful signal goes to the first process
    #                           alone, which passes it on (default: to its
    #                           whole process group)
    #   version                 "6.4.2" or nil when not installed
    #   available?              installed and runnable here
    #   install_hint            the one line that says how to install it
    #   argv(setup, app:, port:, dir:, host: "127.0.0.1")   the command line
    #                              (an argument array); host: the address to listen on;
    #                              a server that serves TLS also takes tls: (Tls::Certificate,
    #                              --tls), in argv and files, given only when the run has it
    #   files(setup, port:, dir:)  {path => content} written before boot (configs;
    #                              a content starting with "#!" is written executable:
    #                              Passenger's --ruby wrapper)
    #   env(setup)              extra environment for the server process
    #   app_root(app_path)      the directory it runs in (the app's own)
    #   worker?(entry, master_pid)  is this descendant a worker process?
    #   master_serves?(setup)   the first process serves too, beside its workers (Agoo)
    #   runs_one_process?(setup)  this setup's master serves alone, with no workers
    #   expected_workers(setup) how many worker processes a booted setup has (0: runs one process)
    #   extra_roots(dir)        pids of daemonized parts outside the spawned tree
    #   helper?(cmdline)        a process of the server's own (not the app's) by its command
    #                           line, when it outlives the stop (Passenger's agents)
    #   log_files(dir)          logs it writes itself beside server.log (capped too)
    #   spawn_failed?(log)      the log says no worker will start (stop waiting for them)
    #   stats?, stats_reader(pid:, port:)  its own stats (Puma's control app): [reader, nil] or [nil, why]
    #   unsupported(setup, cpus:)  why the installed version cannot run the setup's own words
    #                           ("fibers needs Puma >= 7.0 ..."), nil when it can (ServerCheck)
    #
    # and states its facts once, as class methods (read by Setup, Config,
    # tune's Candidates, Lab and ConfigWriter):
    #
    #   threads                 default threads per process; nil: one per process ("xW:T" refused)
    #   only_one_process?       runs exactly one process, whatever the setup ("xW" refused);
    #                           runs_one_process?(setup) (instance): this setup runs one
    #   fibers?(setup)          serves many requests per process at once on fibers: no thread
    #                           slots (stored with each trial for Stats::Verdict); setup: the
    #                           setup's own words may say so ("itsi x2 fibers")
    #   queues_inside?          accepts every connection and queues the requests its threads
    #                           cannot take itself, with no stats rackbench reads (stored with
    #                           each trial: Stats::Verdict counts them as waiting)
    #   default_label(cores)    its setup in a default run; nil: opt-in only
    #   footprint_label         the setup tune boots to measure its memory
    #   in_flight_per_process   requests a tune probe keeps in flight per thread of a process
    #   deploy_files(setup, comment)  {relative path => text}: a config file for a deployment
    #   deploy_command(setup)   how to start it with that file
    #   setup_word(word)        a word of its own in a setup ("fibers", "io:4"): {option => value},
    #                           :workers/:threads for counts it sets; nil: not its word (Setup.parse)
    #   setup_words             those words as the user writes them, for messages and help
    #   check_words!(text, workers:, threads:, options:)  refuses a combination (UsageError)
    #   runtime_adapters        {"jruby" => PumaJruby}: the adapter that runs it on another
    #                           runtime (registered from that adapter's file); none: "on RUNTIME" refused
    #   protocols               what it serves: "http/1.1"; "h2c": HTTP/2 in cleartext with prior
    #                           knowledge, which --engine h2load needs; "h2": HTTP/2 offered by ALPN
    #                           over TLS, which --engine h2load --tls needs (Config refuses others)
    #   thread_ladder           the threads per process tune tries (none: one thread per process)
    #   ladder_option           [flag, help] of a tune option that replaces thread_ladder, declared
    #                           from here by CLI::Options (Puma's --puma-threads); nil: none
    #   tune_default?           tune tries it when --servers is not given (register's tune_default:)
    #   closes_after_error?     answers an application error with a bare 500 of no length, then
    #                           closes: wrk counts that request twice (Runner::Errors)
    #   no_tls                  why it cannot serve HTTPS with the run's certificate (--tls: Config
    #                           refuses the setup with it); nil: it can, and argv takes tls:
    #
    # Adapters only describe a server; ProcessControl::ServerInstance boots and stops it.
    # Built with the app under test: a user's app with a Gemfile runs the
    # server through `bundle exec` inside that app's own bundle.
    class Base
      class << self
        attr_reader :order

        # Adds the adapter to Server::ADAPTERS; order: where it is listed;
        # tune_default: tune tries it when --servers is not given
        # (Server.tune_defaults). Stated per registration, so a subclass
        # (Pitchfork of Unicorn) does not inherit it.
        def register(order:, tune_default: false)
          @order = order
          @tune_default = tune_default
          Server.register(self)
        end

        def tune_default? = @tune_default == true

        def key = self::KEY
        def threads = nil
        def only_one_process? = false
        def fibers?(_setup = nil) = false
        def queues_inside? = false
        def default_label(_cores) = nil
        def footprint_label = "#{key} x2"
        def in_flight_per_process = 1
        def deploy_files(_setup, _comment) = {}
        def deploy_command(_setup) = nil
        def runtime_adapters = (@runtime_adapters ||= {})
        def setup_word(_word) = nil
        def setup_words = []
        def check_words!(_text, workers:, threads:, options:) = nil
        def protocols = %w[http/1.1]
        def closes_after_error? = false
        # The thread counts tune tries per process ("bounded sensibly": 5 is
        # Puma's default and Rails' pool size, 16 Puma's old maximum; beyond
        # that the GVL serialises Ruby code and each thread only adds memory
        # and latency); none for a server of one thread per process.
        def thread_ladder = threads ? [1, 2, 3, 5, 8, 16].freeze : []
        def ladder_option = nil
        def no_tls = "rackbench does not configure TLS for #{key}"

        # An adapter that runs another adapter's server on another runtime
        # (PumaJruby: Puma "on jruby") registers itself under that runtime.
        def register_runtime(runtime, of:)
          of.runtime_adapters[runtime] = self
        end
      end

      def initialize(app: nil)
        @app = app
      end

      # Whether it serves stats rackbench reads, and the reader of them:
      # [reader (#read -> per-worker rows, Sampling::Queues) or nil, why not].
      def stats?
        false
      end

      def stats_reader(pid:, port:)
        [nil, "#{key} has no stats interface rackbench reads"]
      end

      def key
        self.class::KEY
      end

      def gem_name
        key
      end

      def graceful_signal
        "TERM"
      end

      def graceful_to_master?
        false
      end

      def version
        return @app.locked_version(gem_name) if @app&.bundled?

        Gem::Specification.find_by_name(gem_name).version.to_s
      rescue Gem::LoadError # Gem::MissingSpecError too
        nil
      end

      # What to do when the server is missing (one line).
      def install_hint
        return bundle_hint if @app&.bundled?

        "run bin/setup (rackbench's Gemfile lists #{gem_name})"
      end

      def available?
        !version.nil?
      end

      def files(_setup, port:, dir:, tls: nil)
        {}
      end

      def env(_setup)
        { "RACK_ENV" => "production", "RACKBENCH_SERVER" => key }
      end

      # The worker processes to wait for after boot: none when the setup
      # runs one process, else its W (Agoo's W counts its serving master).
      def expected_workers(setup)
        runs_one_process?(setup) ? 0 : setup.workers
      end

      # cpus: the command's --cpus (ProcessControl::Affinity::Sets) or nil.
      def unsupported(_setup, cpus: nil)
        nil
      end

      # The first process serves requests beside the workers it forked (Agoo).
      def master_serves?(_setup)
        false
      end

      # Workers are the master's children unless the server runs single-process.
      def worker?(entry, master_pid)
        entry.ppid == master_pid
      end

      # A process left after the stop that is the server's own helper, by
      # its command line (ServerInstance tells these from the app's).
      def helper?(_cmdline)
        false
      end

      # Pids outside the spawned process's tree that belong to this server
      # (daemonized agents), read from files the server wrote into dir.
      def extra_roots(_dir)
        []
      end

      # Log files the server writes itself in dir, beside the server.log its
      # output goes to (ProcessControl::LogCap keeps them all under a limit).
      def log_files(_dir)
        []
      end

      # True when the server's log says its workers will not start (the app
      # failed to load in them and the server does not retry on its own).
      def spawn_failed?(_log)
        false
      end

      # True when the master process itself serves requests (no forked
      # workers) in this setup; the class fact only_one_process? is true
      # when every setup of the server does.
      def runs_one_process?(_setup)
        false
      end

      # The directory the server runs in: the app's own, also when the
      # config.ru it loads is elsewhere (the --probe wrapper, Workload::ProbeWrapper).
      def app_root(app_path)
        (@app.root if @app.respond_to?(:root)) || File.dirname(app_path)
      end

      private

      # A Gemfile never installed (no lock file) needs the app's own setup
      # first; a lock file without the server, the Gemfile line to add at
      # the version rackbench runs (GemPins), or `bundle install` when the
      # Gemfile names it already.
      def bundle_hint
        root = File.dirname(@app.gemfile)
        return "its Gemfile has no Gemfile.lock yet: run `bundle install` in #{root} (the app's own setup) first" unless @app.locked?

        GemPins.hint([gem_name], @app)
      end

      def ruby
        RbConfig.ruby
      end

      # The command that starts the server's executable. Runtime flags ("on
      # yjit") are not here but in RUBYOPT (Runtime::Flags, set by the
      # session): a flag on this command line is lost whenever Bundler or a
      # binstub starts a fresh Ruby. A user's bundle runs on the Bundler its
      # lock names when installed (Workload::AppBundler), as its check did.
      def launch(_setup = nil, name = key)
        return [ruby, Workload::AppBundler.bundle(@app), "exec", name] if @app&.bundled?

        [ruby, Gem.bin_path(gem_name, name)]
      end
    end
  end
end
