# frozen_string_literal: true

require "fileutils"
require_relative "../../clock"
require_relative "../../ports"
require_relative "../../server"
require_relative "../../process_control/server_instance"
require_relative "../../runtime/check"
require_relative "../../runtime/flags"
require_relative "../../workload/arena"
require_relative "../diagnostics"
require_relative "stored_env"

module Rackbench
  class Runner
    class Session
      # The boot phase: the setup's server started in its directory with its
      # environment (the run's, the app's, the arena's probe, the runtime
      # flags), the runtime it runs checked (Runtime::Check: "on yjit" took
      # in every worker), and its setups.jsonl line stored.
      class Boot
        # The runtime check of the booted server (Measurement stores its state).
        attr_reader :runtime_check

        # neighbours: the labels of the setups booted beside this one (--boot together).
        def initialize(context, setup, repetition, place, neighbours: [])
          @ctx = context
          @config = context.config
          @setup = setup
          @rep = repetition
          @place = place
          @neighbours = neighbours
        end

        # Yields the instance before starting it (so the caller stops it
        # whatever happens next); returns it started and checked.
        def call
          started = Clock.now
          adapter = Server.adapter(@setup.server, app: @ctx.app, runtime: @setup.runtime)
          front = @setup.front
          instance = ProcessControl::ServerInstance.new(adapter: adapter, setup: @setup, app: @ctx.app.config_ru,
                                                        port: (front ? nil : @config[:port]) || Ports.free,
                                                        dir: @place.server_dir, env: server_env,
                                                        ready_path: @place.ready_path, boot_timeout: @config[:boot_timeout],
                                                        stop_timeout: @config[:stop_timeout],
                                                        host: front ? "127.0.0.1" : @place.bind,
                                                        cpus: @config[:cpus]&.server, tls: front ? nil : @ctx.tls,
                                                        fixed_layout: @config[:aslr] == "off")
          yield instance
          instance.start
          runtime_state = @runtime_check.verify!(-> { instance.workers.map(&:pid) }, log_path: instance.log_path)
          @runtime_check.note(runtime_state)&.then { |n| @ctx.listener.warning(n) }
          @ctx.store.append_setup(setup_record(instance, runtime_state, boot_s: Clock.now - started))
          instance
        end

        private

        # The server's environment: the run's, the app's (a bundled app's is
        # clean), the arena's probe, and the runtime flags (Runtime::Flags:
        # RUBYOPT carries "on yjit" and the probe that checks it took).
        def server_env
          dir = @place.server_dir
          env = @ctx.env.merge(@ctx.app.env, probe_env)
          @runtime_check = Runtime::Check.new(@setup, dir: dir)
          FileUtils.mkdir_p(dir)
          FileUtils.rm_f(Runtime::Flags.file(dir)) # a resumed or repeated boot starts a fresh record
          rubyopt = env.key?("RUBYOPT") ? env["RUBYOPT"] : ENV.fetch("RUBYOPT", nil)
          @server_env = env.merge(Runtime::Flags.env(@setup, dir: dir, rubyopt: rubyopt, profile: @config[:profile]))
        end

        # The in-process probe (requests, time and GC per worker) writes here:
        # the arena's own, or a user's app behind the --probe wrapper.
        def probe_env
          return {} unless @ctx.app.arena? || @ctx.app.probed?

          dir = Diagnostics.probe_dir(@place.server_dir)
          FileUtils.mkdir_p(dir)
          { Workload::Arena::PROBE_DIR_VAR => dir }
        end

        def setup_record(instance, runtime_state, boot_s:)
          { "setup" => @setup.label, "server" => @setup.server, "repetition" => @rep, "status" => "ok",
            "version" => instance.adapter.version, "argv" => instance.argv, "config_files" => instance.files,
            "env" => StoredEnv.of(instance.adapter.env(@setup), @ctx.app.env, @server_env),
            "port" => instance.port, "boot_s" => boot_s.round(3),
            "master_pid" => instance.child.pid, "worker_pids" => instance.workers.map(&:pid),
            "runtime" => runtime_state, "aslr" => @config[:aslr] == "off" ? "off" : nil,
            "neighbours" => @neighbours.empty? ? nil : @neighbours, "at" => Clock.wall_iso8601 }.compact
        end
      end
    end
  end
end
