# frozen_string_literal: true

require "uri"
require_relative "../clock"
require_relative "../error"
require_relative "../ports"
require_relative "../server"
require_relative "../server/front"
require_relative "verify"
require_relative "endpoint_failures"
require_relative "../workload/arena"
require_relative "measurement"
require "fileutils"
require_relative "steady_warmup"
require_relative "../runtime/check"
require_relative "pool_check"
require_relative "../sampling/probe_files"
require_relative "../tls"

module Rackbench
  class Runner
    # One setup in one repetition: boot -> ready -> verify -> warm up ->
    # measure each endpoint x level (cool-down after CPU-heavy levels) ->
    # stop. Any SetupFailed is recorded in setups.jsonl with its reason and
    # log tail; the server is always stopped.
    class Session
      # endpoint_failures: the run's EndpointFailures, shared by its sessions;
      # tls: the run's certificate (Tls::Certificate) when it serves HTTPS (--tls).
      Context = Struct.new(:plan, :config, :store, :engine, :listener, :env, :progress, :app, :endpoint_failures, :tls,
                           keyword_init: true) do
        # The same context with another engine and some settings changed
        # (a search's level: its own engine, duration or provisioning).
        def with(engine, **config)
          dup.tap do |c|
            c.engine = engine
            c.config = self.config.merge(config).freeze
          end
        end
      end

      # neighbours: the labels of the setups booted beside this one for the
      # round (--boot together: SharedRound), stored on its setups.jsonl line.
      def initialize(setup:, repetition:, trials:, context:, neighbours: [])
        @setup = setup
        @rep = repetition
        @trials = trials
        @ctx = context
        @config = context.config
        @neighbours = neighbours
      end

      attr_reader :setup, :trials

      # Runs the session's planned trials.
      def call
        with_server do
          @trials.group_by(&:endpoint).each { |endpoint, trials| run_cell(endpoint, trials) unless dropped?(endpoint) }
        end
      end

      # Measures trials (of one endpoint) on the running server, each
      # followed by the cool-down; the first time an endpoint comes, it is
      # warmed up first (at the heaviest of the session's levels for it).
      def run_cell(endpoint, trials)
        prepare(endpoint) unless prepared.include?(endpoint)
        trials.each do |trial|
          measure(trial)
          cool_down(endpoint)
        end
      end

      # An endpoint verification or an earlier setup left out of this session.
      def dropped?(endpoint)
        dropped.include?(endpoint)
      end

      # The server failed while other sessions of the round go on
      # (SharedRound): its failure is recorded, its remaining trials counted
      # as done. The server is stopped when its #with_server block ends.
      def fail!(error)
        fail_setup(error)
      end

      # Boots (unless --url), verifies the endpoints, yields self so a caller
      # (the capacity search) can #measure levels it chooses, then stops.
      # Returns the block's value, or nil when the setup failed or none of
      # its endpoints is left to measure. An endpoint that fails
      # verification is left out (the others are measured), and so is one
      # another setup found the app answers wrongly (EndpointFailures).
      def with_server(endpoints = @trials.map(&:endpoint).uniq)
        endpoints = skip_known(endpoints)
        return nil if endpoints.empty? && dropped.any?

        @ctx.listener.setup_started(@setup, @rep)
        @instance = boot unless @ctx.plan.external?
        @front = boot_front if @setup.front
        @checks = verify(endpoints)
        yield self
      rescue SetupFailed => e
        fail_setup(e)
        nil
      ensure
        Thread.handle_interrupt(Interrupted => :never) do # both are stopped, even on a signal meanwhile
          @front&.stop
          @instance&.stop
        end
        warn_leftovers
      end

      # What outlived the server's stop (and was stopped): the app's
      # processes, and apart from them the server's own helpers.
      def warn_leftovers
        left = @instance&.leftovers
        if left&.any?
          @ctx.listener.warning("#{@setup.label}: the app left #{left.size} process(es) running after its server stopped " \
                                "(started by the app, outside the server's process group: #{left.first(3).join('; ')}); " \
                                "rackbench stopped them")
        end
        helpers = @instance&.helpers
        return unless helpers&.any?

        @ctx.listener.warning("#{@setup.label}: #{helpers.size} of #{@setup.server}'s own helper process(es) outlived its " \
                              "stop (#{helpers.first(3).join('; ')}); rackbench stopped them")
      end

      # One trial on the running server: stored, reported, returned. A search
      # may pass its own context (another engine or settings for this level).
      def measure(trial, context: @ctx)
        alive!
        record = Measurement.new(trial: trial, url: url_of(trial.endpoint), verification: @checks[trial.endpoint],
                                 instance: @instance, front: @front, context: context, runtime: @runtime_check,
                                 warmup: warmups[trial.endpoint], warmup_summary: warmup_summaries[trial.endpoint]).call
        alive!
        settle
        record
      end

      # When a trial's load stops, a server may still hold queued requests
      # (wrk closes its connections, but Unicorn and Thin serve every request
      # already accepted), and the next trial would wait behind them. A fresh
      # request to the ready path, served in arrival order, is answered once
      # they are done: wait for it, within the request timeout plus the
      # trial's duration.
      def settle
        return unless @instance

        deadline = Clock.now + @config[:timeout] + @config[:duration]
        port = (@front || @instance).port
        until ProcessControl::HttpProbe.get(bind, port, ready_path, timeout: [deadline - Clock.now, 0.5].max, tls: @ctx.tls)
          if Clock.now > deadline
            return @ctx.listener.warning("#{@setup.label}: still busy with queued requests after the trial; " \
                                         "the next trial may wait behind them (raise --timeout)")
          end

          sleep 0.05
        end
      end

      # Returns the engine's Result (nil without warm-up, or when it failed);
      # --warmup steady: the last window's (SteadyWarmup).
      def warm_up(endpoint, trials, engine: @ctx.engine)
        steady = @config[:warmup] == "steady"
        return unless steady || @config[:warmup].positive?

        url = url_of(endpoint)
        ProcessControl::Affinity.pin(engine, @config[:cpus])
        @ctx.listener.warming_up(@setup, url)
        common = { url: url, timeout: @config[:timeout], log_path: File.join(@ctx.store.logs_dir, "warmup.log") }
        common[:scenario] = @ctx.plan.scenario if @ctx.plan.scenario
        run = lambda do |seconds|
          if trials.first.rate
            engine.run(rate: trials.map(&:rate).min, connections: @config[:connections], duration: seconds, **common)
          else
            engine.run(concurrency: trials.map(&:concurrency).max, threads: @config[:threads], duration: seconds, **common)
          end
        end
        warmups[endpoint] = steady ? steady_warm_up(endpoint, trials, run) : run.call(@config[:warmup])
      rescue Error => e
        @ctx.listener.warning("#{@setup.label}: warm-up of #{url} failed (#{e.message}); measuring anyway")
        nil
      end

      # {endpoint => SteadyWarmup::Outcome#to_h}: stored with each trial.
      def warmup_summaries
        @warmup_summaries ||= {}
      end

      private

      # Each window is stored the moment it ends (warmups.jsonl).
      def steady_warm_up(endpoint, trials, run)
        rule = SteadyWarmup.new(window: @config[:warmup_window], tolerance: @config[:warmup_tolerance],
                                max: @config[:warmup_max], open_loop: !trials.first.rate.nil?, run: run)
        outcome = rule.call do |w|
          @ctx.store.append_warmup({ "setup" => @setup.label, "repetition" => @rep, "endpoint" => endpoint,
                                     "at" => Clock.wall_iso8601 }.merge(w))
        end
        warmup_summaries[endpoint] = outcome.to_h
        outcome.last
      end

      # {endpoint => the warm-up's Load::Result}: its latency tells a trial
      # whether to count throughput in a window (Measurement#window?).
      def warmups
        @warmups ||= {}
      end

      def boot_front
        kind = Server::Front.fetch(@setup.front)
        front = kind.new(upstream_port: @instance.port, port: @config[:port] || Ports.free, dir: server_dir,
                         host: bind, cpus: @config[:cpus]&.server, **(@ctx.tls ? { tls: @ctx.tls } : {}))
        @front = front
        front.start
        @ctx.store.append_setup("setup" => @setup.label, "repetition" => @rep, "status" => "ok", "front" => @setup.front,
                                "version" => kind.version, "port" => front.port,
                                "config" => front.config, "at" => Clock.wall_iso8601)
        front
      end

      def prepare(endpoint)
        prepared << endpoint
        warm_up(endpoint, @trials.select { |t| t.endpoint == endpoint })
        settle
        check_pool
      end

      def prepared
        @prepared ||= []
      end

      def boot
        started = Clock.now
        adapter = Server.adapter(@setup.server, app: @ctx.app, runtime: @setup.runtime)
        instance = ProcessControl::ServerInstance.new(adapter: adapter, setup: @setup, app: @ctx.app.config_ru,
                                                      port: (@setup.front ? nil : @config[:port]) || Ports.free,
                                                      dir: server_dir, env: server_env,
                                                      ready_path: ready_path, boot_timeout: @config[:boot_timeout],
                                                      stop_timeout: @config[:stop_timeout],
                                                      host: @setup.front ? "127.0.0.1" : bind,
                                                      cpus: @config[:cpus]&.server, tls: @setup.front ? nil : @ctx.tls,
                                                      fixed_layout: @config[:aslr] == "off")
        @instance = instance
        instance.start
        @runtime_state = @runtime_check.verify!(-> { instance.workers.map(&:pid) }, log_path: instance.log_path)
        @runtime_check.note(@runtime_state)&.then { |n| @ctx.listener.warning(n) }
        @ctx.store.append_setup(setup_record(instance, boot_s: Clock.now - started))
        instance
      end

      # The server's environment: the run's, the app's (a bundled app's is
      # clean), the arena's probe, and the runtime flags (Runtime::Flags:
      # RUBYOPT carries "on yjit" and the probe that checks it took).
      def server_env
        env = @ctx.env.merge(@ctx.app.env, probe_env)
        @runtime_check = Runtime::Check.new(@setup, dir: server_dir)
        FileUtils.mkdir_p(server_dir)
        FileUtils.rm_f(Runtime::Flags.file(server_dir)) # a resumed or repeated boot starts a fresh record
        rubyopt = env.key?("RUBYOPT") ? env["RUBYOPT"] : ENV.fetch("RUBYOPT", nil)
        @server_env = env.merge(Runtime::Flags.env(@setup, dir: server_dir, rubyopt: rubyopt))
      end

      # {endpoint => Verify::Outcome} of the endpoints that answer right; one
      # that does not is dropped from this session (EndpointFailures keeps
      # it when it is the app's answer). Raises SetupFailed when none does,
      # or when the server died meanwhile.
      def verify(endpoints)
        return {} unless @config[:verify]

        verifier = verifier_for
        failed = {}
        checks = endpoints.each_with_object({}) do |endpoint, out|
          out[endpoint] = verify_endpoint(verifier, endpoint)
        rescue Verify::Failed => e
          alive!
          failed[endpoint] = e
        end
        failed.each { |endpoint, e| failures.add(endpoint, e, @setup.label) }
        if checks.empty? && failed.any?
          raise failed.size == 1 ? failed.values.first : SetupFailed.new(failed.values.map(&:message).join("; "))
        end

        failed.each { |endpoint, e| drop(endpoint, "failed", e.message) }
        checks
      end

      # The endpoints not known to fail; the others are recorded as skipped,
      # with one warning for the run.
      def skip_known(endpoints)
        endpoints.reject do |endpoint|
          known = failures[endpoint] or next false
          drop(endpoint, "skipped", failures.skip_reason(known))
          failures.warning_once(known)&.then { |text| @ctx.listener.warning(text) }
          true
        end
      end

      # Leaves endpoint out of this session: its trials counted as done, a
      # setups.jsonl line saying why (a failure is reported as one).
      def drop(endpoint, status, reason)
        dropped << endpoint
        left = @trials.count { |t| t.endpoint == endpoint && !@ctx.store.trial_keys.include?(t.key) }
        left.times { @ctx.progress.next! }
        record = EndpointFailures.record(@setup, @rep, endpoint, status: status, reason: reason, trials_skipped: left)
        @ctx.store.append_setup(record)
        @ctx.listener.setup_failed(record) if status == "failed"
      end

      def dropped
        @dropped ||= []
      end

      def failures
        @ctx.endpoint_failures ||= EndpointFailures.new
      end

      # A scenario is verified path by path; its outcome marks close-delimited
      # responses if any of its paths has them.
      def verify_endpoint(verifier, endpoint)
        scenario = @ctx.plan.scenario
        return verifier.call(endpoint) unless scenario && endpoint == scenario.label

        outcomes = scenario.paths.map { |path| verifier.call(path) }
        outcomes.first.dup.tap do |o|
          o.endpoint = endpoint
          o.close_delimited = outcomes.any?(&:close_delimited)
          o.connection_close = outcomes.any?(&:connection_close)
        end
      end

      def verifier_for
        if @instance
          Verify.new(host: bind, port: (@front || @instance).port, server: @setup.server, arena: @ctx.app.arena?,
                     upstream_bytes: @config[:upstream_bytes], timeout: @config[:timeout],
                     expect_status: @config[:expect_status], server_log: @instance.log_path, tls: @ctx.tls)
        else
          uri = URI(@config[:url])
          Verify.new(host: uri.host, port: uri.port, arena: false, timeout: @config[:timeout],
                     expect_status: @config[:expect_status], tls: Tls.for_url(@config[:url]), external: true)
        end
      end

      def cool_down(endpoint)
        heavy = !@ctx.app.arena? || Workload::Arena.cpu_heavy?(endpoint)
        sleep @config[:cooldown] if heavy && @config[:cooldown].positive?
      end

      def alive!
        raise SetupFailed, "#{@setup.label}: #{@setup.front} died during the run (#{@front.child.exit_summary})" if @front && !@front.alive?
        return if @instance.nil? || @instance.alive?

        raise SetupFailed.new("#{@setup.label}: server died during the run (#{@instance.child.exit_summary}); " \
                              "see #{@instance.log_path}", log_tail: @instance.log_tail)
      end

      def fail_setup(error)
        left = @trials.count { |t| !dropped.include?(t.endpoint) && !@ctx.store.trial_keys.include?(t.key) }
        left.times { @ctx.progress.next! }
        record = { "setup" => @setup.label, "server" => @setup.server, "repetition" => @rep, "status" => "failed",
                   "reason" => error.message, "log_tail" => error.log_tail, "trials_skipped" => left,
                   "at" => Clock.wall_iso8601 }
        @ctx.store.append_setup(record)
        @ctx.listener.setup_failed(record)
      end

      def setup_record(instance, boot_s:)
        { "setup" => @setup.label, "server" => @setup.server, "repetition" => @rep, "status" => "ok",
          "version" => instance.adapter.version, "argv" => instance.argv, "config_files" => instance.files,
          "env" => redact(stored_env(instance)), "port" => instance.port, "boot_s" => boot_s.round(3),
          "master_pid" => instance.child.pid, "worker_pids" => instance.workers.map(&:pid),
          "runtime" => @runtime_state, "aslr" => @config[:aslr] == "off" ? "off" : nil,
          "neighbours" => @neighbours.empty? ? nil : @neighbours, "at" => Clock.wall_iso8601 }.compact
      end

      # The variables rackbench set for the server (the run's own are not stored).
      def stored_env(instance)
        instance.adapter.env(@setup).merge(@ctx.app.env, @server_env.slice("RUBYOPT", "RUBY_YJIT_ENABLE"))
      end

      # Environment as stored: secrets masked, unset variables shown as unset.
      def redact(env)
        env.to_h { |k, v| [k, k.match?(/SECRET|TOKEN|PASSWORD|KEY_BASE/) && v ? "(generated, not stored)" : (v || "(unset)")] }
      end

      # Once per session, after the first warm-up: threads above the app's
      # Active Record pool, as the probe read it in the workers (PoolCheck).
      def check_pool
        return if @pool_checked || @instance.nil?

        @pool_checked = true
        dir = Diagnostics.probe_dir(server_dir)
        return unless File.directory?(dir)

        PoolCheck.warning(@setup, Sampling::ProbeFiles.new(dir).read)&.then { |w| @ctx.listener.warning(w) }
      end

      # The in-process probe (requests, time and GC per worker) writes here:
      # the arena's own, or a user's app behind the --probe wrapper.
      def probe_env
        return {} unless @ctx.app.arena? || @ctx.app.probed?

        dir = Diagnostics.probe_dir(server_dir)
        FileUtils.mkdir_p(dir)
        { Workload::Arena::PROBE_DIR_VAR => dir }
      end

      def url_of(endpoint)
        base_url + @ctx.plan.path_of(endpoint)
      end

      def base_url
        return @config[:url] unless @instance

        (@front || @instance).url("")
      end

      # The address the servers (or nginx in front) listen on: --bind.
      def bind
        @config[:bind] || "127.0.0.1"
      end

      def server_dir
        File.join(@ctx.store.logs_dir, "#{Measurement.slug(@setup.label)}-r#{@rep}")
      end

      def ready_path
        @ctx.app.arena? ? Workload::Arena::READY_PATH : "/"
      end
    end
  end
end
