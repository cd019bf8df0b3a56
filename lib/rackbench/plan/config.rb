# frozen_string_literal: true

require "etc"
require "uri"
require_relative "../error"
require_relative "../redact"
require_relative "setup"
require_relative "../suggest"
require_relative "scenario"
require_relative "../workload/arena"
require_relative "../load"
require_relative "../load/remote/settings"
require_relative "../process_control/affinity"
require_relative "../process_control/layout"
require_relative "../stats/decision"
require_relative "refs_rule"

module Rackbench
  # Run configuration: one frozen DEFAULTS hash, layered as
  # command line > plan file > defaults, validated where it enters.
  module Config
    # The quick plan (a run with no options) is these defaults: every
    # installed server x QUICK_ENDPOINTS x 2 levels of 2 s, in under 3 minutes
    # on 2 cores with six servers (48 trials: 2 min 42 s to 2 min 58 s here with
    # 0.5 s cool-downs, as other processes took more of the machine). With
    # Falcon and Pitchfork in it, levels and cool-downs were trimmed rather
    # than servers (3 levels and 1 s cool-downs took 4 min 2 s; a cool-down
    # is now --cooldown's to ask for); durations were not (wrk takes whole
    # seconds, and 1 s trials hold less than one round of thin's c = 16
    # latency on /pause/0.05, 0.8 s). c = 1 is one request's latency; c = 8
    # queues on every default setup (4 per core on 2 cores). Not c = 16: on
    # /pause/0.05 the two-process setups then hold each request ~0.4 s, and a
    # 2 s trial is under Stats::Validity's 10 x W, so half the quick plan's
    # cells came out "not valid" (W = 0.2 s at c = 8).
    DEFAULTS = {
      setups: [],            # empty: each installed server of the default plan scaled to the cores (Config.default_setups)
      refs: [],              # run --ref: commits of the app ({"name", "sha"} once resolved: Workload::GitRefs); RefsRule
      fail_if_slower: nil,   # run --ref --fail-if-slower PERCENT: the gate (Stats::RefGate); RefsRule
      endpoints: [],         # empty: the quick plan's arena endpoints
      scenario: nil,         # weighted paths loaded together: "/:5,/posts:3" (replaces endpoints)
      concurrency: [1, 8],
      rate: [],              # req/s per level; non-empty: open loop (engine wrk-open) instead of concurrency
      connections: nil,      # open loop: connections; nil: max(R x 10 ms, R x expected_latency)
      expected_latency: nil, # open loop: seconds of latency to provision connections for; nil: from the warm-up (Load::OpenLoopSizing), 0.25 without one
      duration: 2.0,         # seconds of measured load per trial
      warmup: 1.0,           # unrecorded seconds per setup and endpoint before its trials; "steady": until steady state
      warmup_window: 2.0,    # --warmup steady: seconds per warm-up window (Runner::SteadyWarmup)
      warmup_tolerance: 0.05, # --warmup steady: two consecutive windows within this share are steady
      warmup_max: 60.0,      # --warmup steady: seconds after which the warm-up ends unsteady (a warning)
      cooldown: 0.0,         # idle seconds after each level of a CPU-heavy endpoint (0: none)
      repeat: 1,             # rounds: every setup once per round, in a fresh random order (Plan#schedule)
      per_boot: 1,           # takes: each cell measured this many times back to back on one boot (Plan#trials_for)
      seed: nil,             # the round orders' random seed; nil: drawn at the run's start (stored in meta.json)
      margin: Stats::Decision::DEFAULT_MARGIN, # equivalence margin of decisions: a share, from --margin PERCENT
      decide: false,         # run --decide: add rounds until neighbouring setups are decided (Runner::AdaptiveRounds)
      max_rounds: 20,        # --decide: at most this many rounds
      decide_time: 900.0,    # --decide: seconds from the run's start after which no round is added
      engine: Load.default_name, # the engine registered default: true (wrk)
      threads: nil,          # load-generator threads; nil: min(concurrency, cores)
      timeout: 30.0,         # a request slower than this counts as a timeout error
      boot_timeout: 60.0,
      stop_timeout: 10.0,    # graceful stop, then KILL
      port: nil,             # nil: a free port chosen per server boot
      app: nil,              # nil: the built-in arena app
      url: nil,              # benchmark a server already running; no server management
      pid: nil,              # with url: the server's pid to sample
      out: nil,              # nil: rackbench-runs/<timestamp>
      upstream_delay: 0.1,   # seconds the network-io upstream stub waits before answering
      upstream_bytes: 20_000,
      health_path: nil,      # a health check during every trial; nil: /health on the arena, none on other apps
      health_timeout: 2.0,   # a health check slower than this fails (and fails the capacity SLO)
      verify: true,          # check each endpoint's first responses before loading it
      probe: nil,            # --probe/--no-probe: the in-process probe in front of a user's app; nil: PROBE_DEFAULT
      expect_status: nil,    # statuses verification accepts, e.g. [301]; nil: any 2xx
      quiet: false,
      load_hosts: [],        # [USER@]HOST[:PORT][=WEIGHT]: load from these hosts over SSH (Load::Remote)
      ssh_key: nil,          # with load_hosts: a private key file (nil: the agent's keys and ~/.ssh's)
      ssh_known_hosts: nil,  # with load_hosts: the known_hosts file (nil: ~/.ssh/known_hosts)
      bind: "127.0.0.1",     # the address servers (and nginx in front) listen on
      boot: "apart",         # --boot together: a round's setups booted side by side (Runner::SharedRound, BootFit)
      aslr: "on",            # --aslr off: servers start with address randomisation off (ProcessControl::Layout)
      tls: false,            # --tls: every setup serves HTTPS with a certificate made for the run (Tls)
      cpus: nil              # --cpus: ProcessControl::Affinity::Sets (server and client CPU sets) or nil: shared
    }.freeze

    BUILT_IN_APPS = %w[arena rails].freeze # --app names that are not paths (Workload::App)
    # --probe's default for a user's app (probe: nil): decided by the probe's measured
    # overhead (bench/probe_overhead.rb; the README and docs/running.md give the figure and the reason).
    PROBE_DEFAULT = false
    QUICK_ENDPOINTS = ["/hello", "/fibonacci/25", "/template-render", "/pause/0.05"].freeze
    NUMBERS = %i[duration warmup warmup_window warmup_tolerance warmup_max cooldown timeout boot_timeout stop_timeout upstream_delay expected_latency
                 health_timeout].freeze
    COUNTS = %i[repeat upstream_bytes].freeze
    MAX_CONCURRENCY = 10_000

    module_function

    def keys
      DEFAULTS.keys
    end

    # layers: hashes from lowest to highest precedence (plan file, command line).
    def build(*layers)
      merged = layers.compact.reduce(DEFAULTS) { |acc, layer| acc.merge(layer.compact) }
      validate(merged).freeze
    end

    # A JSON-able form of a built config (stored in meta.json for --resume).
    def dump(cfg)
      cfg.to_h { |k, v| [k.to_s, %i[setups load_hosts].include?(k) ? v.map { |x| x.respond_to?(:spec) ? x.spec : x.label } : (k == :cpus ? v&.to_h : v)] }
    end

    def load(hash)
      build(hash.to_h { |k, v| [k.to_sym, v] }.slice(*keys))
    end

    # The same setup twice would be folded into one cell as if it were a
    # repetition: refused (to measure one setup under two names, an A/A
    # test, tag them: "puma x2:5 #a" and "puma x2:5 #b").
    def check_duplicate_setups(setups)
      twice = setups.map(&:label).tally.find { |_, n| n > 1 }&.first
      return unless twice

      raise UsageError, "setup #{twice.inspect} is given twice; give it once and use --repeat N for rounds " \
                        "(or tag each to measure it under two names: \"#{twice} #a\" and \"#{twice} #b\")"
    end

    # Each server's own default setup for this many cores (Server::Base.default_label;
    # opt-in servers have none), for the installed ones (CLI::ServerCheck
    # says which of default_servers it left out, and why).
    def default_setups(cores = Etc.nprocessors, installed: Server.keys)
      Server::ADAPTERS.slice(*installed).values.filter_map { |klass| klass.default_label(cores) }
    end

    # The servers a run with no --setup plans: those with a default setup.
    def default_servers(cores = Etc.nprocessors)
      Server::ADAPTERS.select { |_, klass| klass.default_label(cores) }.keys
    end

    def validate(cfg)
      cfg = cfg.dup
      unknown = cfg.keys - keys
      raise UsageError, "unknown setting #{unknown.first}#{Suggest.did_you_mean(unknown.first, keys)}" if unknown.any?

      cfg[:warmup] = "steady" if cfg[:warmup].is_a?(String) && cfg[:warmup].strip.casecmp?("steady")
      NUMBERS.each do |k|
        next if (k == :warmup && cfg[k] == "steady") || (k == :expected_latency && cfg[k].nil?)

        cfg[k] = number(k, cfg[k], min: NUMBER_MIN.fetch(k, 0))
      end
      check_warmup(cfg)
      COUNTS.each { |k| cfg[k] = count(k, cfg[k], max: { repeat: MAX_REPEAT }[k]) }
      cfg[:per_boot] = per_boot(cfg)
      cfg[:concurrency] = Array(cfg[:concurrency]).flatten.map { |c| count(:concurrency, c, max: MAX_CONCURRENCY) }
      raise UsageError, "concurrency needs at least one level, e.g. --concurrency 1,8,32" if cfg[:concurrency].empty?

      cfg[:rate] = Array(cfg[:rate]).flatten.map { |r| number(:rate, r, min: 0.1) }
      cfg[:engine] = Load.default_name("open") if cfg[:rate].any? && cfg[:engine] == DEFAULTS[:engine]
      check_loop(cfg)
      cfg[:connections] = count(:connections, cfg[:connections]) unless cfg[:connections].nil?
      cfg[:threads] = count(:threads, cfg[:threads]) unless cfg[:threads].nil?
      cfg[:pid] = count(:pid, cfg[:pid]) unless cfg[:pid].nil?
      cfg[:port] = count(:port, cfg[:port], max: 65_535) unless cfg[:port].nil?
      cfg[:setups] = Array(cfg[:setups]).map { |s| s.is_a?(Setup) ? s : Setup.parse(s) }
      check_duplicate_setups(cfg[:setups])
      cfg[:endpoints] = Array(cfg[:endpoints]).map { |e| endpoint(e) }
      cfg[:health_path] = endpoint(cfg[:health_path]) unless cfg[:health_path].nil?
      cfg[:expect_status] = statuses(cfg[:expect_status]) unless cfg[:expect_status].nil?
      cfg[:margin] = margin(cfg[:margin])
      cfg[:seed] = seed(cfg[:seed])
      check_decide(cfg)
      RefsRule.check(cfg)
      check_scenario(cfg)
      check_url(cfg)
      check_probe(cfg)
      check_protocol(cfg)
      check_tls(cfg)
      check_aslr(cfg)
      check_boot(cfg)
      check_arena(cfg)
      cfg[:cpus] = ProcessControl::Affinity.parse(cfg[:cpus]) unless cfg[:cpus].is_a?(ProcessControl::Affinity::Sets)
      Load::Remote::Settings.check(cfg)
    end

    NUMBER_MIN = { duration: 0.5, warmup_window: 0.5, warmup_tolerance: 0.001 }.freeze
    # Timeouts of 0 would fail every request or boot: they must be at least
    # the smallest that can pass: a millisecond for a request or a health
    # check (wrk's timeouts count whole milliseconds), 0.1 s for a boot (no
    # Ruby server starts and answers sooner).
    POSITIVE = { timeout: 0.001, boot_timeout: 0.1, health_timeout: 0.001 }.freeze
    # No trial, warm-up, pause or timeout longer than a day: a typo (-d 1e9,
    # a 31-year trial) is refused before anything boots.
    MAX_SECONDS = 86_400
    MAX_REPEAT = 1000
    MAX_PER_BOOT = 20
    # Decimal numbers only, as a person writes them ("2", "0.5", "1.5e1"):
    # Float() alone also reads "0x10" as 16 and "1_0" as 10.
    DECIMAL = /\A\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*\z/.freeze

    # --warmup steady needs windows that fit its cap; its tolerance is a share.
    def check_warmup(cfg)
      if cfg[:warmup_tolerance] >= 1
        raise UsageError, "--warmup-tolerance is a share of throughput below 1, e.g. 0.05 for 5% (got #{cfg[:warmup_tolerance]})"
      end
      return if cfg[:warmup_max] >= 2 * cfg[:warmup_window]

      raise UsageError, "--warmup-max (#{cfg[:warmup_max]} s) must hold two --warmup-window windows " \
                        "(#{cfg[:warmup_window]} s each) to compare; raise it"
    end

    def number(key, value, min: 0)
      n = Float(value, exception: false) if value.is_a?(Numeric) || (value.is_a?(String) && value.match?(DECIMAL))
      positive = POSITIVE[key]
      if n&.finite? && n >= min && !(positive && n < positive)
        return n if key == :rate || key == :warmup_tolerance || n <= MAX_SECONDS

        raise UsageError, "#{flag(key)} #{value.inspect} is over a day (#{MAX_SECONDS} s), the most rackbench takes; " \
                          "give seconds, e.g. #{flag(key)} 30"
      end
      if positive
        raise UsageError, "#{flag(key)} must be a number of seconds above 0, at least #{format('%g', positive)} (got " \
                          "#{value.inspect}): a shorter timeout fails every " \
                          "#{{ boot_timeout: 'boot', health_timeout: 'health check' }.fetch(key, 'request')}"
      end

      unit = { rate: "requests per second", warmup_tolerance: "(a share, e.g. 0.05)" }.fetch(key, "seconds")
      return raise(UsageError, "--warmup must be a number of seconds >= 0 or \"steady\" (got #{value.inspect})") if key == :warmup

      raise UsageError, "#{flag(key)} must be a number of #{unit} >= #{min} (got #{value.inspect})"
    end

    # The equivalence margin as a share (0.05), from 0.05 or a percentage
    # as typed (--margin 5 or 5%: Units.percent's reading, then / 100).
    def margin(value)
      share = value.is_a?(Numeric) ? value.to_f : nil
      return share if share&.positive? && share < 1

      shown = value.is_a?(Numeric) ? "#{format('%g', value * 100)}%" : value.inspect
      raise UsageError, "--margin must be a percentage above 0 and below 100, e.g. 5 for +-5% (got #{shown})"
    end

    # --per-boot K (1..MAX_PER_BOOT), or auto: two pilot rounds of 2 takes,
    # then the takes Kalibera & Jones's rule chooses (Plan#takes_for), which
    # needs a round after the pilots.
    def per_boot(cfg)
      value = cfg[:per_boot]
      unless value.to_s.strip.casecmp?(AUTO)
        n = value.is_a?(Integer) ? value : Integer(value.to_s, 10, exception: false)
        return n if n&.between?(1, MAX_PER_BOOT)

        raise UsageError, "--per-boot must be a whole number from 1 to #{MAX_PER_BOOT}, or auto (got #{value.inspect})"
      end
      return AUTO if cfg[:decide] == true || cfg[:repeat] > PILOT_ROUNDS

      raise UsageError, "--per-boot auto measures #{PILOT_ROUNDS} rounds of #{PILOT_TAKES} takes per boot, then chooses the takes " \
                        "for the rounds after them: give -r #{PILOT_ROUNDS + 1} or more (or --decide)"
    end
    AUTO = "auto"
    PILOT_ROUNDS = 2
    PILOT_TAKES = 2

    # --decide needs setups to decide between, and rounds to pair.
    def check_decide(cfg)
      max = Integer(cfg[:max_rounds].to_s, 10, exception: false)
      unless max&.between?(2, MAX_REPEAT)
        raise UsageError, "--max-rounds must be a whole number of 2 or more, at most #{MAX_REPEAT} (got #{cfg[:max_rounds].inspect})"
      end

      cfg[:max_rounds] = max
      cfg[:decide_time] = number(:decide_time, cfg[:decide_time], min: 1)
      cfg[:decide] = cfg[:decide] == true
      return unless cfg[:decide]

      raise UsageError, "--decide compares setups: --url measures one server; give --app and 2 or more --setup" if cfg[:url]

      least = Stats::Decision.smallest_max_rounds(repeat: cfg[:repeat], margin: cfg[:margin])
      if max < least && cfg[:repeat] < max
        raise UsageError, "--max-rounds #{max} cannot reach a decision under --decide's stopping rule (a look after every " \
                          "round from round #{Stats::Looks::FIRST}, the 5% rate spent over the looks up to --max-rounds): " \
                          "give --max-rounds #{least} or more"
      end
      return unless cfg[:setups].size == 1 && Array(cfg[:refs]).size < 2 # run --ref: one setup per commit

      raise UsageError, "--decide compares setups: give 2 or more (-s \"#{cfg[:setups].first.label}\" -s ...), " \
                        "or use --repeat N for one setup's rounds"
    end

    # The seed of the rounds' random orders: drawn when none is given, and
    # stored with the config so a resumed run keeps its orders.
    def seed(value)
      return Random.new_seed % (2**31) if value.nil?

      n = Integer(value.to_s, 10, exception: false)
      return n if n && n >= 0

      raise UsageError, "--seed must be a whole number >= 0 (got #{value.inspect})"
    end

    def check_scenario(cfg)
      return if cfg[:scenario].nil?

      Scenario.parse(cfg[:scenario])
      raise UsageError, "give --endpoint or --scenario, not both" if cfg[:endpoints].any?
      return if Load.scenario?(cfg[:engine])

      raise UsageError, "--scenario needs --engine #{Load.names.select { |n| Load.scenario?(n) }.join(' or ')} " \
                        "(#{cfg[:engine]} loads one URL)"
    end

    # An engine that speaks HTTP/2 in cleartext (Load.protocol "h2c": h2load)
    # needs setups whose server serves it (Server::Base.protocols) with
    # nothing in front (nginx here serves HTTP/1.1). A --url server is the
    # user's to know; h2load itself then says when it got no HTTP/2 answer.
    # With --tls it speaks h2 (offered by the server's ALPN) instead.
    def check_protocol(cfg)
      protocol = Load.protocol(cfg[:engine])
      return if protocol == "http/1.1" || cfg[:url]

      protocol = "h2" if cfg[:tls] && protocol == "h2c"
      cannot = cfg[:setups].reject { |s| s.front.nil? && Server::ADAPTERS[s.server]&.protocols&.include?(protocol) }
      return if cannot.empty?

      able = Server::ADAPTERS.values.select { |klass| klass.protocols.include?(protocol) }
      how = protocol == "h2" ? "HTTP/2 over TLS (h2, negotiated by ALPN)" : "HTTP/2 in cleartext (#{protocol}, prior knowledge)"
      raise UsageError, "--engine #{cfg[:engine]} speaks #{how}, which " \
                        "#{cannot.map(&:label).join(' and ')} cannot serve: only #{able.map(&:key).join(', ')} " \
                        "serve#{'s' if able.size == 1} #{protocol} here#{' with nothing in front' if cannot.any?(&:front)}; " \
                        "give #{able.map { |k| "-s \"#{k.default_label(2) || k.footprint_label}\"" }.join(' or ')}, " \
                        "or use --engine wrk"
    end

    # --boot apart|together; together boots several servers of rackbench's
    # own at once, each on a port of its own.
    def check_boot(cfg)
      cfg[:boot] = cfg[:boot].to_s.downcase
      raise UsageError, "--boot must be apart or together (got #{cfg[:boot].inspect})" unless %w[apart together].include?(cfg[:boot])
      return if cfg[:boot] == "apart"
      raise UsageError, "--boot together boots rackbench's servers side by side; the server at --url is your own: drop --boot" if cfg[:url]
      raise UsageError, "--boot together boots a round's servers side by side, each on a port of its own: drop --port" if cfg[:port]
      return unless cfg[:setups].size == 1

      raise UsageError, "--boot together boots a round's setups side by side: give 2 or more (-s \"#{cfg[:setups].first.label}\" -s ...)"
    end

    # --aslr on|off; off needs setarch to work here (checked before any boot),
    # and makes sense only for servers rackbench starts.
    def check_aslr(cfg)
      cfg[:aslr] = cfg[:aslr].to_s.downcase
      raise UsageError, "--aslr must be on or off (got #{cfg[:aslr].inspect})" unless %w[on off].include?(cfg[:aslr])
      return if cfg[:aslr] == "on"
      raise UsageError, "--aslr off starts the servers rackbench boots; the server at --url is your own: drop --aslr" if cfg[:url]

      ProcessControl::Layout.usable!
    end

    # --tls: every setup must serve HTTPS with the run's certificate: its
    # server (Server::Base.no_tls, on its runtime) or nginx in front (which
    # terminates TLS for any server). Those that cannot are refused together,
    # each with its reason. The server at --url is the user's own: its URL
    # says https:// itself.
    def check_tls(cfg)
      return unless cfg[:tls]
      if cfg[:url]
        raise UsageError, "--tls makes the servers rackbench boots serve HTTPS; the server at --url is your own: " \
                          "drop --tls and give its https:// URL"
      end
      refused = cfg[:setups].filter_map do |s|
        why = no_tls(s) or next
        front = Server::Front.tls_names.first
        fronted = "#{s.label.sub(/ behind \w+\z/, '')} behind #{front}"
        "#{s.label}: #{why}; #{front} in front serves TLS for it: -s #{fronted.inspect}" unless s.runtime == "jruby"
      end
      refused += cfg[:setups].select { |s| s.runtime == "jruby" && no_tls(s) }.map { |s| "#{s.label}: #{no_tls(s)}" }
      raise UsageError, "--tls: #{refused.join('; ')}" if refused.any?
    end

    # Why setup cannot serve --tls, nil when it can.
    def no_tls(setup)
      return Server::Front.fetch(setup.front).no_tls if setup.front

      klass = Server::ADAPTERS[setup.server] or return nil
      (setup.runtime == "jruby" ? klass.runtime_adapters.fetch("jruby", klass) : klass).no_tls
    end

    # --rate needs an open-loop engine, and an open-loop engine needs --rate.
    def check_loop(cfg)
      open = Load.open_loop?(cfg[:engine])
      return if open == cfg[:rate].any?

      unless open
        why = Load.registration(cfg[:engine]).no_rate
        raise UsageError, "--engine #{cfg[:engine]} is closed-loop and takes --concurrency, not --rate#{": #{why}" if why}"
      end

      raise UsageError, "--engine #{cfg[:engine]} is open-loop: give --rate, e.g. --rate 50,100,200"
    end

    def count(key, value, max: nil)
      n = Integer(value, 10, exception: false) if value.is_a?(String)
      n = value if value.is_a?(Integer)
      return n if n && n >= 1 && (max.nil? || n <= max)

      raise UsageError, "#{flag(key)} must be a whole number from 1#{max ? " to #{max}" : ''} (got #{value.inspect})"
    end

    # --expect-status 301 or 301,302: statuses wrk counts as answers (it
    # counts 400 and above as errors, so those cannot be expected).
    def statuses(value)
      codes = Array(value).flatten.flat_map { |v| v.to_s.split(",") }.map(&:strip)
      parsed = codes.map { |c| Integer(c, 10, exception: false) }
      return parsed if parsed.any? && parsed.all? { |c| c&.between?(200, 399) }

      raise UsageError, "--expect-status must be HTTP statuses from 200 to 399, e.g. 301 or 301,302 (got #{value.inspect}); " \
                        "wrk counts 400 and above as errors"
    end

    def endpoint(value)
      path = value.to_s.strip
      bad = path.index(/[[:space:][:cntrl:]]/)
      if bad
        encoded = path.gsub(/[[:space:][:cntrl:]]/) { |c| format("%%%02X", c.ord) }
        raise UsageError, "endpoint #{value.inspect} holds #{path[bad].inspect} at position #{bad + 1}: write it " \
                          "percent-encoded (#{format('%%%02X', path[bad].ord)}), e.g. --endpoint #{encoded}"
      end
      return path if path.start_with?("/")

      raise UsageError, "endpoint #{value.inspect} must be a path starting with /, e.g. --endpoint /hello"
    end

    # The probe runs inside a server rackbench boots: --url's server is the user's own.
    def check_probe(cfg)
      return unless cfg[:probe] == true && cfg[:url]

      raise UsageError, "--probe runs inside a server rackbench boots; the server at --url is your own: drop --probe " \
                        "(or put the probe's middleware in your app yourself)"
    end

    # --url as users write it: http://host:port, http://host:port/ or
    # http://host:port/path?q=1. The base is kept in cfg[:url]; a path (or
    # query) becomes the one endpoint; with neither, the endpoint is "/".
    def check_url(cfg)
      return if cfg[:url].nil?

      base, target = split_url(cfg[:url])
      unless cfg[:setups].empty?
        raise UsageError, "--url benchmarks a server that is already running; drop --setup (got #{cfg[:setups].map(&:label).join(', ')})"
      end

      cfg[:url] = base
      named = cfg[:endpoints].any? || cfg[:scenario]
      if target && named
        raise UsageError, "--url #{base}#{target} already names the endpoint #{target}; give the base URL #{base} " \
                          "with --endpoint/--scenario, or drop them"
      end
      cfg[:endpoints] = [target || "/"] unless named
    end

    # [base, path-and-query or nil]
    def split_url(text)
      uri = URI.parse(text.to_s.strip)
      raise URI::InvalidURIError unless uri.is_a?(URI::HTTP) && !uri.host.to_s.empty? && uri.fragment.nil?

      base = "#{uri.scheme}://#{uri.host}:#{uri.port}"
      target = uri.request_uri
      [base, target == "/" ? nil : target]
    rescue URI::InvalidURIError
      raise UsageError, "--url #{Redact.text(text).inspect} must be an http:// URL like http://127.0.0.1:3000/ " \
                        "or http://127.0.0.1:3000/posts?page=2"
    end

    # The built-in arena app serves a fixed catalogue: any other path is
    # refused here, before a server boots.
    def check_arena(cfg)
      return unless cfg[:url].nil? && [nil, "arena"].include?(cfg[:app])

      paths = cfg[:endpoints] + (cfg[:scenario] ? Scenario.parse(cfg[:scenario]).paths : []) + [cfg[:health_path]].compact
      bad = paths.find { |path| !Workload::Arena.serves?(path) }
      return if bad.nil?

      raise UsageError, "the built-in arena app does not serve #{bad}; its endpoints: " \
                        "#{Workload::Arena::CATALOGUE.join(', ')} (your own app: --app PATH)"
    end

    def flag(key)
      return "--time-budget" if key == :decide_time

      "--#{key.to_s.tr('_', '-')}"
    end
  end
end
