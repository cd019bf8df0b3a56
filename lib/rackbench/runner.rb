# frozen_string_literal: true

require_relative "clock"
require_relative "error"
require_relative "ports"
require_relative "server"
require_relative "workload/arena"
require_relative "workload/upstream_stub"
require_relative "runner/trial_record"
require_relative "verify"
require "uri"

module Rackbench
  # For each setup in the plan: boot -> ready -> warm up -> measure each
  # endpoint x level -> stop; each trial is stored the moment it ends. A setup
  # that fails is recorded with its reason and the run goes on. Reporting
  # happens in listeners; the runner only measures and stores.
  class Runner
    def initialize(plan:, store:, engine:, listener:)
      @plan = plan
      @config = plan.config
      @store = store
      @engine = engine
      @listener = listener
      @done = 0
      @total = plan.trials.size
    end

    def app
      @config[:app] || Workload::Arena::CONFIG_RU
    end

    def call
      with_upstream do |env|
        @plan.schedule.each { |rep, setup| run_setup(setup, rep, env) }
      end
      @listener.run_finished(@store)
    end

    private

    def with_upstream
      return yield({}) unless Workload::Arena.needs_upstream?(@plan.endpoints) && !@plan.external?

      stub = Workload::UpstreamStub.new(delay: @config[:upstream_delay], bytes: @config[:upstream_bytes],
                                        log_dir: @store.logs_dir).start
      yield({ "RACKBENCH_UPSTREAM_URL" => stub.url })
    ensure
      stub&.stop
    end

    def run_setup(setup, rep, env)
      return run_trials(setup, rep, base_url: @config[:url], checks: verify_external) if @plan.external?

      instance = boot(setup, rep, env) or return
      checks = verify(Verify.new(host: "127.0.0.1", port: instance.port, server: setup.server,
                                 arena: @config[:app].nil?, upstream_bytes: @config[:upstream_bytes],
                                 timeout: @config[:timeout]))
      run_trials(setup, rep, base_url: instance.url(""), instance: instance, checks: checks)
    rescue SetupFailed => e
      fail_setup(setup, rep, e)
    ensure
      instance&.stop
    end

    def boot(setup, rep, env)
      @listener.setup_started(setup, rep)
      dir = File.join(@store.logs_dir, "#{slug(setup.label)}-r#{rep}")
      started = Clock.now
      instance = Server::Instance.new(adapter: Server.adapter(setup.server), setup: setup, app: app,
                                      port: Ports.free, dir: dir, env: env, ready_path: ready_path,
                                      boot_timeout: @config[:boot_timeout]).start
      @store.append_setup(setup_record(setup, rep, instance, boot_s: Clock.now - started))
      instance
    rescue SetupFailed => e
      fail_setup(setup, rep, e)
      nil
    end

    # {endpoint => Verify::Outcome}; raises SetupFailed on a wrong answer.
    def verify(verifier)
      return {} unless @config[:verify]

      @plan.endpoints.to_h { |endpoint| [endpoint, verifier.call(endpoint)] }
    end

    def verify_external
      uri = URI(@config[:url])
      verify(Verify.new(host: uri.host, port: uri.port, arena: false, timeout: @config[:timeout]))
    end

    def run_trials(setup, rep, base_url:, checks:, instance: nil)
      trials = @plan.trials_for(setup, rep)
      trials.group_by(&:endpoint).each do |endpoint, level_trials|
        warm_up(setup, base_url + endpoint, level_trials.map(&:concurrency).max)
        level_trials.each do |trial|
          check_alive!(instance)
          measure(trial, base_url + trial.endpoint, checks[trial.endpoint])
          cool_down(endpoint)
        end
      end
    end

    def measure(trial, url, verification)
      @done += 1
      @listener.trial_started(trial, @done, @total)
      log = File.join(@store.logs_dir, "#{slug(trial.key)}.wrk.log")
      started_at = Clock.wall_iso8601
      result = @engine.run(url: url, concurrency: trial.concurrency, duration: @config[:duration],
                           threads: @config[:threads], timeout: @config[:timeout], log_path: log)
      record = TrialRecord.build(trial, result, started_at: started_at, log: File.basename(log),
                                 verification: verification)
      @store.append_trial(record)
      @listener.trial_finished(record, @done, @total)
    end

    def warm_up(setup, url, concurrency)
      return unless @config[:warmup].positive?

      @listener.warming_up(setup, url)
      @engine.run(url: url, concurrency: concurrency, duration: @config[:warmup], threads: @config[:threads],
                  timeout: @config[:timeout], log_path: File.join(@store.logs_dir, "warmup.log"))
    rescue Error => e
      @listener.warning("#{setup.label}: warm-up of #{url} failed (#{e.message}); measuring anyway")
    end

    def cool_down(endpoint)
      heavy = @config[:app] || Workload::Arena.cpu_heavy?(endpoint)
      sleep @config[:cooldown] if heavy && @config[:cooldown].positive?
    end

    def check_alive!(instance)
      return if instance.nil? || instance.alive?

      raise SetupFailed.new("#{instance.setup.label}: server died during the run " \
                            "(#{instance.child.exit_summary}); see #{instance.log_path}", log_tail: instance.log_tail)
    end

    def fail_setup(setup, rep, error)
      skipped = @plan.trials_for(setup, rep).size - @store.trials.count { |t| t["setup"] == setup.label && t["repetition"] == rep }
      @done += skipped
      record = { "setup" => setup.label, "server" => setup.server, "repetition" => rep, "status" => "failed",
                 "reason" => error.message, "log_tail" => error.log_tail, "at" => Clock.wall_iso8601 }
      @store.append_setup(record)
      @listener.setup_failed(record)
    end

    def setup_record(setup, rep, instance, boot_s:)
      { "setup" => setup.label, "server" => setup.server, "repetition" => rep, "status" => "ok",
        "version" => instance.adapter.version, "argv" => instance.argv, "config_files" => instance.files,
        "env" => instance.adapter.env(setup), "port" => instance.port,
        "boot_s" => boot_s.round(3), "master_pid" => instance.child.pid,
        "worker_pids" => instance.workers.map(&:pid), "at" => Clock.wall_iso8601 }
    end

    def ready_path
      @config[:app] ? "/" : Workload::Arena::READY_PATH
    end

    def slug(text)
      text.gsub(/[^A-Za-z0-9.]+/, "_").gsub(/\A_|_\z/, "")
    end
  end
end
