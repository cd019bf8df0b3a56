# frozen_string_literal: true

require "etc"
require_relative "../error"
require_relative "../suggest"
require_relative "../load"
require_relative "../load/remote/settings"
require_relative "../server"
require_relative "../stats/decision"
require_relative "values"
require_relative "settings"
require_relative "settle"
require_relative "rules/per_boot" # PILOT_ROUNDS below
require_relative "rules/probe" # PROBE_DEFAULT below
# Every file of rules/ is a rule of RULES (a new rule is a new file there).
Dir[File.join(__dir__, "rules", "*.rb")].sort.each { |rule| require rule }

module Rackbench
  # Run configuration: one frozen DEFAULTS hash, layered as
  # command line > plan file > defaults, validated where it enters: each
  # value alone (Config::Values, with the parsers of Units), then the
  # settings together by the rules of RULES, in that order.
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
      refs: [],              # run --ref: commits of the app ({"name", "sha"} once resolved: Workload::GitRefs); Rules::Refs
      fail_if_slower: nil,   # run --ref --fail-if-slower PERCENT: the gate (Stats::RefGate); Rules::Refs
      setup_cmd: nil,        # run --setup-cmd CMD: the app's setup before any boot (Workload::SetupCommand); "": none; Rules::SetupCmd
      fetch_gems: false,     # run --ref --fetch-gems: `bundle install` from the Gemfile's sources (Workload::BundleInstall)
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
      rate_share: 1.0,       # the share of the 5% rate this run's decisions spend (Stats::Looks); bisect's steps: 1/K
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
      profile: false,        # run --profile: stackprof in every server process, each trial profiled (Sampling::Profiler)
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
      cpus: nil,             # --cpus: ProcessControl::Affinity::Sets (server and client CPU sets) or nil: shared
      space: nil             # rackbench tune: its search space (Config::Space: servers, budgets, SLO, ladders, cores); nil: not a tune; Rules::Space
    }.freeze

    # What Config.build returns: DEFAULTS' keys as one frozen value.
    SETTINGS = Settings[DEFAULTS.keys]

    BUILT_IN_APPS = %w[arena rails].freeze # --app names that are not paths (Workload::App)
    # --probe's default for a user's app (probe: nil), which Rules::Probe settles.
    PROBE_DEFAULT = Rules::Probe::DEFAULT
    QUICK_ENDPOINTS = ["/hello", "/fibonacci/25", "/template-render", "/pause/0.01"].freeze

    # The quick plan answers (issue 42, item 4): a run that names no plan
    # (no plan file, suite, app, URL, ref, setup, endpoint or scenario) and
    # no rounds (--repeat, --decide) is a race (Stats::Race) of the default
    # setups on QUICK_ENDPOINTS at c = 8, rounds until each endpoint has a
    # winner or an equivalence group of leaders, within QUICK's budget.
    # Each of these is a layer under the command line: -c 1,8, -d 2,
    # --max-rounds or --time-budget given win over it, and -r N (or a plan)
    # gives the fixed rounds of before. Measured here (2 cores): a round
    # of six setups x 4 endpoints at 1 s trials takes 75-85 s (boots, 1 s
    # warm-ups, Passenger's ~10 s stop), so 270 s hold 3-4 rounds, and
    # --max-rounds 4 spends the rate over the looks the budget can reach
    # (rounds 3 and 4: 83% of it at round 3, against 50% with 8);
    # docs/methodology.md, "The quick plan's race", says what it decides.
    QUICK = { concurrency: [8], duration: 1.0, decide: true, max_rounds: 4, decide_time: 270.0 }.freeze
    QUICK_UNLESS = %i[setups endpoints scenario app url refs repeat decide resume].freeze

    # The quick plan's layer for these command-line settings, or nil.
    def self.quick_layer(cli, plan_path: nil, suite: nil)
      return nil if plan_path || suite || QUICK_UNLESS.any? { |k| cli.key?(k) && ![nil, [], false].include?(cli[k]) }

      QUICK
    end
    AUTO = Values::AUTO
    PILOT_ROUNDS = Rules::PerBoot::PILOT_ROUNDS
    PILOT_TAKES = Rules::PerBoot::PILOT_TAKES

    # The cross-field rules: every module of Rules (one file each in
    # rules/, required above) and the load hosts' Load::Remote::Settings,
    # run by their ORDER once every value is parsed. Each answers
    # check(cfg) on a frozen cfg: it raises a UsageError that names the
    # flags and what to do, or returns nil, or returns the values it
    # settles as a Hash (the open-loop engine, --url's endpoint), which the
    # builder merges before the next rule reads them. A rule that settles
    # a value has a smaller ORDER than the rules that read it
    # (test/unit/plan/rules/order_test.rb).
    RULES = (Rules.constants.map { |name| Rules.const_get(name) }.select { |rule| rule.respond_to?(:check) } +
             [Load::Remote::Settings]).sort_by { |rule| rule::ORDER }.freeze

    module_function

    def keys
      DEFAULTS.keys
    end

    # layers: hashes (or Settings) from lowest to highest precedence (plan
    # file, command line); a Settings value (frozen, every key a setting).
    # world (Settle::World): a command about to measure, whose settings
    # take the refs' commits and the default plan's servers from outside
    # (Settle), settled here and checked by the rules again.
    # (Settings given as bare keywords, build(app: dir), are the top layer.)
    def build(*layers, world: nil, **top)
      layers << top unless top.empty?
      merged = layers.compact.reduce(DEFAULTS) { |acc, layer| acc.merge(layer.to_h.compact) }
      settled = validate(merged)
      settled = validate(Settle.call(settled, world)) if world
      SETTINGS.new(settled)
    end

    # A JSON-able form of a built config (stored in meta.json for --resume).
    def dump(cfg)
      cfg.to_h do |k, v|
        [k.to_s, %i[setups load_hosts].include?(k) ? v.map { |x| x.respond_to?(:spec) ? x.spec : x.label } : (%i[cpus space].include?(k) ? v&.to_h : v)]
      end
    end

    def load(hash)
      build(hash.to_h { |k, v| [k.to_sym, v] }.slice(*keys))
    end

    # Each server's own default setup for this many cores (Server::Base.default_label;
    # opt-in servers have none), for the installed ones (ServerCheck
    # says which of default_servers it left out, and why).
    def default_setups(cores = Etc.nprocessors, installed: Server.keys)
      Server::ADAPTERS.slice(*installed).values.filter_map { |klass| klass.default_label(cores) }
    end

    # The servers a run with no --setup plans: those with a default setup.
    def default_servers(cores = Etc.nprocessors)
      Server::ADAPTERS.select { |_, klass| klass.default_label(cores) }.keys
    end

    def validate(cfg)
      cfg = cfg.to_h.dup
      unknown = cfg.keys - keys
      raise UsageError, "unknown setting #{unknown.first}#{Suggest.did_you_mean(unknown.first, keys)}" if unknown.any?

      Values.parse(cfg)
      RULES.reduce(cfg) { |settled, rule| apply(rule, settled) }
    end

    # One rule on cfg (read-only to it): cfg with what the rule settles.
    def apply(rule, cfg)
      settled = rule.check(cfg.dup.freeze)
      settled.is_a?(Hash) ? cfg.merge(settled) : cfg
    end

    # The flag that sets key: "--time-budget" for :decide_time.
    def flag(key)
      Values.flag(key)
    end
  end
end
