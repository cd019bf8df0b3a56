# frozen_string_literal: true

require_relative "../wrk"
require_relative "../wrk_output"
require_relative "../wrk_open_loop"
require_relative "../wrk_open_output"
require_relative "../../error"
require_relative "../../run_file"
require_relative "host"
require_relative "ssh"
require_relative "probe"
require_relative "shares"
require_relative "host_run"
require_relative "merge"

module Rackbench
  module Load
    module Remote
      # A load engine whose load comes from other hosts (--load-host): the same
      # bounded wrk (closed loop) or wrk-open (open loop) command rackbench runs
      # here, on every load host at once (one SSHKit connection and thread per
      # host), each with its share of the level (Shares), the hosts' results
      # merged exactly (Merge). Answers the engine contract (name, available?,
      # version, command, run) like the engine it wraps.
      #
      # Stopping: wrk on each host is bounded by -d and --timeout. When run
      # ends early (an interrupt, an error), every host's wrk still running is
      # killed and its directory removed before run returns or raises
      # (HostRun#stop); a dropped connection hangs it up (Ssh's pty).
      class Engine
        ENGINES = %w[wrk wrk-open].freeze
        JOIN_GRACE_S = 15
        # Closed loop: the scripts that also export the latency histogram.
        HISTOGRAM_SCRIPTS = { Wrk::SCRIPT => File.expand_path("../wrk/histogram_report.lua", __dir__),
                              Wrk::SCENARIO_SCRIPT => File.expand_path("../wrk/histogram_scenario.lua", __dir__) }.freeze

        attr_reader :infos

        # Probes every host at once (Probe); raises UsageError naming the
        # first host that cannot be used.
        def self.connect(engine_name, hosts, ssh:, threads: nil)
          infos = hosts.map { |h| Thread.new { Thread.current.report_on_exception = false; Probe.call(h, ssh) } }
                       .map { |t| join(t) }
          new(engine_name, infos, ssh: ssh, threads: threads)
        end

        def self.join(thread)
          thread.value
        rescue Error => e
          raise UsageError, e.message
        end

        def initialize(engine_name, infos, ssh:, threads: nil)
          @base = Load.engine(engine_name)
          @open = engine_name == "wrk-open"
          @infos = infos
          @ssh = ssh
          @threads = threads
        end

        def name
          @base.name
        end

        def available?
          true
        end

        def version
          @infos.first&.wrk_version
        end

        def hosts
          @infos.map(&:host)
        end

        # The first host's argv (each host gets its own share).
        def command(**load)
          argvs(load).first
        end

        def run(log_path:, **load)
          runs = @infos.map { |info| HostRun.new(info.host, @ssh) }
          threads = runs.zip(argvs(load)).map { |run, argv| Thread.new { Thread.current.report_on_exception = false; outcome(run, argv) } }
          parts = threads.map(&:value)
          log(log_path, parts)
          Merge.call(parts, loop: @open ? "open" : "closed", duration: load[:duration])
        ensure
          # An interrupt or error while hosts still run: stop them all.
          Thread.handle_interrupt(Object => :never) { stop(runs, threads) }
        end

        private

        def outcome(run, argv)
          info = @infos.find { |i| i.host == run.host }
          part = Merge::Part.new(host: run.host, share: share_of(info), level: level_of(argv), cores: info.cores)
          run.prepare
          text, cpu, status = run.run(argv.map { |a| a.end_with?(".lua") && HostRun::SCRIPTS.include?(a) ? run.remote_path(a) : a })
          part.cpu = cpu
          part.result = parse(text, argv)
          part.histogram = Merge.histogram(text)
          part.result.command = argv.map { |a| HostRun::SCRIPTS.include?(a) ? File.basename(a) : a }
          part.error = "wrk exited #{status}" if status.nil? || !status.zero?
          part.log = text
          part
        rescue Error => e
          part.error = e.message.sub(/\Aload host \S+: /, "")
          part
        ensure
          run.cleanup
        end

        def parse(text, argv)
          @open ? WrkOpenOutput.parse(text, command: argv) : WrkOutput.parse(text, command: argv)
        rescue Error
          raise Error, WrkOutput.failure_message(text.lines.grep_v(/^RACKBENCH_/).join, url: nil)
        end

        def stop(runs, threads)
          return unless threads

          live = runs.zip(threads).select { |_, t| t.alive? }.map(&:first)
          live.map { |run| Thread.new { run.stop } }.each { |t| t.join(JOIN_GRACE_S) }
          threads.each { |t| t.join(JOIN_GRACE_S) }
        end

        def log(path, parts)
          RunFile.open(path) do |f|
            parts.each { |p| f.puts "== load host #{p.host.label}#{p.error ? " (failed: #{p.error})" : ''}", p.log.to_s }
          end
        end

        def weights
          @infos.map { |i| i.host.weight || i.cores }
        end

        def share_of(info)
          Shares.fractions(weights)[@infos.index(info)]
        end

        def level_of(argv)
          @open ? { "rate" => argv[argv.index("-s") + 3].to_f } : { "concurrency" => Integer(argv[argv.index("-c") + 1]) }
        end

        # One wrk argv per host, in host order.
        def argvs(load)
          load = load.except(:window)
          if @open
            rates = Shares.rates(load.fetch(:rate), weights)
            conns = load[:connections] && Shares.connections(load[:connections], weights, hosts.map(&:label))
            rates.each_with_index.map do |rate, i|
              @base.command(**load, rate: rate, connections: conns&.[](i))
            end
          else
            conns = Shares.connections(load.fetch(:concurrency), weights, hosts.map(&:label))
            conns.each_with_index.map do |c, i|
              threads = Shares.threads(c, @infos[i].cores, load[:threads] || @threads)
              @base.command(**load, concurrency: c, threads: threads).map { |a| HISTOGRAM_SCRIPTS.fetch(a, a) }
            end
          end
        end

      end
    end
  end
end
