# frozen_string_literal: true

require_relative "../store/target"
require_relative "../workload/app"

module Rackbench
  module CLI
    # The options of every command that boots setups and drives load (run,
    # capacity, tune): one definition, so their flags and help agree. Each
    # sets a key of Config::DEFAULTS in the cli hash.
    module LoadOptions
      module_function

      def define(o, cli)
        o.on("-s", "--setup LABEL", 'server setup, repeatable: "puma x2:5", "unicorn x4", "thin", "passenger x2"') { |v| (cli[:setups] ||= []) << v }
        o.on("--scenario MIX", 'weighted paths loaded together, e.g. "/:5,/posts:3,/search?q=x:2"') { |v| cli[:scenario] = v }
        o.on("-e", "--endpoint PATH", "endpoint to load, repeatable: /hello, /pause/0.05 ... (default: 4 arena endpoints; / with --app PATH or --url)") { |v| (cli[:endpoints] ||= []) << v }
        o.on("-c", "--concurrency LIST", Array, "open connections per level, e.g. 1,8,32 (default 1,8,32)") { |v| cli[:concurrency] = v }
        o.on("--rate LIST", Array, "open loop: offered req/s per level, e.g. 50,100,200 (engine wrk-open)") { |v| cli[:rate] = v }
        o.on("--connections N", "open loop: connections (default: enough for --expected-latency at the rate)") { |v| cli[:connections] = v }
        o.on("--expected-latency SECONDS", "open loop: latency to provision connections for (default: Little's law from the warm-up; 0.25 without one)") { |v| cli[:expected_latency] = v }
        o.on("-d", "--duration SECONDS", "measured load per trial (default 2)") { |v| cli[:duration] = v }
        o.on("--warmup SECONDS|steady", "unrecorded load per setup and endpoint first (default 1; 0 = none; " \
                                        "steady: windows until two agree, for a JIT)") { |v| cli[:warmup] = v }
        o.on("--warmup-window SECONDS", "with --warmup steady: length of each window (default 2)") { |v| cli[:warmup_window] = v }
        o.on("--warmup-tolerance SHARE", "with --warmup steady: windows within this share agree (default 0.05)") { |v| cli[:warmup_tolerance] = v }
        o.on("--warmup-max SECONDS", "with --warmup steady: give up (and warn) after this long (default 60)") { |v| cli[:warmup_max] = v }
        o.on("--cooldown SECONDS", "pause after each level of a CPU-heavy endpoint (default 1)") { |v| cli[:cooldown] = v }
        o.on("-r", "--repeat N", "repetitions of every cell, setups reordered each time (default 1)") { |v| cli[:repeat] = v }
        o.on("--engine NAME", "load generator: wrk (default), wrk-open (with --rate), ab, siege, siege-close (no keep-alive)") { |v| cli[:engine] = v }
        define_process(o, cli)
        define_verification(o, cli)
        o.on("--port N", "port the servers listen on (default: a free one per boot)") { |v| cli[:port] = v }
        o.on("--app PATH", "your app: a config.ru or a Rails root (built in: arena, the default, and rails)") { |v| cli[:app] = Workload::App.expand(v) }
        o.on("--url URL", "a server already running: http://HOST:PORT/ loads /, http://HOST:PORT/PATH?Q loads PATH?Q") { |v| cli[:url] = v }
        o.on("--pid PID", "with --url: the running server's pid") { |v| cli[:pid] = v }
        o.on("-o", "--out DIR", "run directory (default rackbench-runs/<timestamp>)") { |v| cli[:out] = Store::Target.expand(v) }
        o.on("--upstream-delay SECONDS", "delay of the /network-io upstream stub (default 0.1)") { |v| cli[:upstream_delay] = v }
        o.on("--upstream-bytes N", "body size of the /network-io upstream stub (default 20000)") { |v| cli[:upstream_bytes] = v }
        o.on("--health-path PATH", "health check during every trial (default /health on the arena app)") { |v| cli[:health_path] = v }
        o.on("--health-timeout SECONDS", "a health check slower than this fails (default 2)") { |v| cli[:health_timeout] = v }
      end

      # What verification accepts: also tune's.
      def define_verification(o, cli)
        o.on("--expect-status LIST", "statuses verification accepts instead of 2xx, e.g. 301 to measure a redirect") { |v| cli[:expect_status] = v }
      end

      # Load-generator threads, request timeout and the servers' boot and
      # stop deadlines: also tune's, whose other options differ.
      def define_process(o, cli)
        o.on("--threads N", "load-generator threads (default min(concurrency, cores))") { |v| cli[:threads] = v }
        o.on("--cpus server=LIST,client=LIST|auto", "pin the server (and nginx) and the load generator to disjoint CPUs, " \
                                                    "e.g. server=0,client=1; auto: client on the last quarter") { |v| cli[:cpus] = v }
        o.on("--timeout SECONDS", "a request slower than this is a timeout error (default 30)") { |v| cli[:timeout] = v }
        o.on("--boot-timeout SECONDS", "how long a server may take to answer after start (default 60)") { |v| cli[:boot_timeout] = v }
        o.on("--stop-timeout SECONDS", "graceful stop, then KILL (default 10)") { |v| cli[:stop_timeout] = v }
      end
    end
  end
end
