# frozen_string_literal: true

require_relative "../plan/config"
require_relative "../plan/flags"
require_relative "../plan/setup"
require_relative "../server"
require_relative "../load"
require_relative "../units"
require_relative "../store/target"
require_relative "../workload/app"
require_relative "../search/tune/candidates"
require_relative "../stats/decision"
require_relative "../report/formats"

module Rackbench
  module CLI
    # Every option of the measuring commands (run, capacity, tune), declared
    # once: its flags, its help and its default (Config::Flags says what each
    # field is; a rule file may declare its own setting's flag there). A
    # command picks the options it uses (Options.define); --help appends each
    # default from the declaration, so the text cannot drift from the value
    # (dry-cli's banner does the same).
    module Options
      Option = Config::Flags::Option
      DECLARED = Config::Flags::DECLARED
      TEXT = Config::Flags::TEXT

      def self.declare(key, *flags, help, **more)
        Config::Flags.declare(key, *flags, help, **more)
      end

      # run's options: --suite and --quick, every declared flag whose key is
      # a setting (Config::DEFAULTS), these first, then those rule files
      # declared, and --resume.
      def self.run_keys
        settings = DECLARED.values.select { |o| Config::DEFAULTS.key?(o.key) }
        %i[suite quick] + settings.reject(&:owner).map(&:key) + settings.select(&:owner).map(&:key) + %i[resume]
      end

      # --time-budget is two options under one flag and one parser: run
      # --decide's (:decide_time, Config's: no round is added after it) and
      # tune's (:time_budget: the search stops); each its own key, default
      # (15m, 10m) and floor (1 s, 10 s).
      def self.time_budget(key, help, min:, **more)
        declare key, "--time-budget TIME", help, parse: ->(v) { Units.seconds(v, min: min) }, **more
      end

      # What every measuring command may take.
      SERVER_WORDS = Server::ADAPTERS.filter_map { |key, klass| "#{key} #{klass.setup_words.join('|')}" if klass.setup_words.any? }
      declare :setups, "-s", "--setup LABEL", 'server setup, repeatable: "puma x2:5", "unicorn x4", "thin", "passenger x2"; ' \
                                               "servers' own words: #{SERVER_WORDS.join(', ')}; a proxy in front: " \
                                               "#{Server::Front.names.map { |n| "behind #{n}" }.join(', ')} (README: Setups)",
              many: true, rule: "each installed server of the default plan scaled to this machine's cores"
      declare :scenario, "--scenario MIX", 'weighted paths loaded together, e.g. "/:5,/posts:3,/search?q=x:2"'
      declare :refs, "--ref REF", "with --app in a git repository: a commit of the app to compare (repeatable, 2 or more: " \
                                  "--ref main --ref HEAD), each checked out into the run directory; labels main@1a2b3c4",
              many: true
      # The gate (Stats::Gate): run --ref's and compare's, one option.
      declare :fail_if_slower, "--fail-if-slower PERCENT",
              ["exit 1 when some cell's req/s is decided slower by more than PERCENT (0: the --margin): in",
               "run, a later --ref than the first; in compare, RUN_B than RUN_A; or when cells are missing; exit 3",
               "when that cannot be decided: an interval reaches past -PERCENT, or a cell has fewer than 2 of both"],
              parse: ->(v) { Units.gate_percent(v) }
      declare :endpoints, "-e", "--endpoint PATH", "endpoint to load, repeatable: /hello, /pause/0.05 ...",
              many: true, rule: "4 arena endpoints; / with --app PATH or --url"
      declare :concurrency, "-c", "--concurrency LIST", "open connections per level, e.g. 1,8,32", default: :config
      declare :rate, "--rate LIST", "open loop: offered req/s per level, e.g. 50,100,200 (engine wrk-open)"
      declare :connections, "--connections N", "open loop: connections", rule: "enough for --expected-latency at the rate"
      declare :expected_latency, "--expected-latency SECONDS", "open loop: latency to provision connections for",
              rule: "Little's law from the warm-up's p99; 0.25 without a warm-up"
      declare :duration, "-d", "--duration SECONDS", "measured load per trial", default: :config
      declare :warmup, "--warmup SECONDS|steady", "unrecorded load per setup and endpoint first (0 = none; steady: " \
                                                  "windows until two agree, for a JIT)", default: :config
      declare :warmup_window, "--warmup-window SECONDS", "with --warmup steady: length of each window", default: :config
      declare :warmup_tolerance, "--warmup-tolerance SHARE", "with --warmup steady: windows within this share agree",
              default: :config
      declare :warmup_max, "--warmup-max SECONDS", "with --warmup steady: give up (and warn) after this long",
              default: :config
      declare :cooldown, "--cooldown SECONDS", "pause after each level of a CPU-heavy endpoint", default: :config
      declare :repeat, "-r", "--repeat N", "rounds: every setup once per round, in a fresh random order", default: :config
      declare :per_boot, "--per-boot K|auto", "measure each endpoint and level K times back to back on each boot, so the " \
                                              "report can split the variance between boots from that between trials of a " \
                                              "boot; auto: 2 rounds of 2, then the K that split calls for",
              default: :config
      declare :seed, "--seed N", "random seed of the rounds' setup orders", rule: "drawn, and stored in meta.json"
      declare :decide, "--decide", "add rounds until every pair of neighbours in each cell's req/s ranking is decided " \
                                   "(faster, slower or equivalent), up to --max-rounds and --time-budget; each look " \
                                   "(after every round from round 3) spends a share of the 5% rate, so stopping at " \
                                   "the first decision keeps it", parse: ->(_) { true }
      declare :max_rounds, "--max-rounds N", "with --decide: rounds at most (the looks share the rate up to it)", default: :config
      time_budget :decide_time, "with --decide: add no round after this long (from the run's start): 15m, 900s",
                  rule: "15m", min: 1
      # The margin's default is Stats::Decision's, shown as a percentage; run,
      # report and compare take this one declaration (their own rule for
      # where a stored run's margin comes first).
      MARGIN_DEFAULT = format("%g", Stats::Decision::DEFAULT_MARGIN * 100)
      declare :margin, "--margin PERCENT", "equivalence margin of the decisions between setups: within it is " \
                                           "\"equivalent\", beyond it \"faster\"/\"slower\"",
              rule: MARGIN_DEFAULT, parse: ->(v) { Units.margin_percent(v) }
      declare :engine, "--engine NAME", "load generator: #{Load.help}",
              default: :config
      declare :threads, "--threads N", "load-generator threads",
              rule: "the largest divisor of the concurrency up to min(concurrency, cores, 2)"
      declare :cpus, "--cpus server=LIST,client=LIST|auto", "pin the server (and its proxy) and the load generator to " \
                                                           "disjoint CPUs, e.g. server=0,client=1; auto: client on the last quarter",
              rule: "shared"
      declare :aslr, "--aslr on|off", "off: start the servers with address randomisation off (setarch -R), so " \
                                      "every boot has the same memory layout (docs/methodology.md)", default: :config
      declare :boot, "--boot apart|together", "together: from round 2, boot a round's setups side by side when their " \
                                              "measured footprint fits in memory, and measure them cell by cell " \
                                              "(docs/methodology.md)", default: :config
      declare :timeout, "--timeout SECONDS", "a request slower than this is a timeout error", default: :config
      declare :boot_timeout, "--boot-timeout SECONDS", "how long a server may take to answer after start", default: :config
      declare :stop_timeout, "--stop-timeout SECONDS", "graceful stop, then KILL", default: :config
      declare :expect_status, "--expect-status LIST", "statuses verification accepts instead of 2xx, e.g. 301 to " \
                                                      "measure a redirect"
      declare :port, "--port N", "port the servers listen on", rule: "a free one per boot"
      declare :app, "--app PATH", "your app: a config.ru or a Rails root (built in: arena and rails)",
              rule: "arena", parse: ->(v) { Workload::App.expand(v) }
      declare :url, "--url URL", "a server already running: http://HOST:PORT/ loads /, http://HOST:PORT/PATH?Q loads PATH?Q"
      declare :pid, "--pid PID", "with --url: the running server's pid"
      declare :out, "-o", "--out DIR", "run directory", rule: "rackbench-runs/<timestamp>",
                                                        parse: ->(v) { Store::Target.expand(v) }
      declare :upstream_delay, "--upstream-delay SECONDS", "delay of the /network-io upstream stub", default: :config
      declare :upstream_bytes, "--upstream-bytes N", "body size of the /network-io upstream stub", default: :config
      declare :health_path, "--health-path PATH", "health check during every trial", rule: "/health on the arena app"
      declare :health_timeout, "--health-timeout SECONDS", "a health check slower than this fails", default: :config
      declare :quiet, "-q", "--quiet", "no progress lines", parse: ->(_) { true }

      # Load from other hosts (Load::Remote) and the address servers listen on: run; doctor takes the first three
      declare :load_hosts, "--load-host [USER@]HOST[:PORT]", "load from this host over SSH (repeatable; engines wrk and " \
                                                             "wrk-open; =WEIGHT after it replaces its cores in the split)",
              many: true
      declare :ssh_key, "--ssh-key FILE", "with --load-host: a private key", rule: "ssh-agent's and ~/.ssh's keys; never a password"
      declare :ssh_known_hosts, "--ssh-known-hosts FILE", "with --load-host: known_hosts holding the hosts' keys",
              rule: "~/.ssh/known_hosts"
      declare :bind, "--bind ADDRESS", "address servers and nginx listen on (Thruster listens on every address), one the load hosts reach", default: :config

      # run only
      declare :suite, "--suite NAME", "a built-in suite reproducing a seed study (rackbench suites lists them)"
      declare :quick, "--quick", "with --suite: its quick variant (a few minutes on 2 cores)", parse: ->(_) { true }
      declare :verify, "--no-verify", "skip checking each endpoint's first responses before load", parse: ->(_) { false }
      declare :tls, "--tls", "serve every setup over HTTPS with a certificate made for the run (in its tls/ " \
                             "directory); a server with no TLS of its own goes \"behind nginx\"", parse: ->(_) { true }
      declare :probe, "--[no-]probe", "your app (--app) behind rackbench's in-process probe: per request CPU, GC, " \
                                      "SQL, view and waiting time (the built-in arena always has it)",
              rule: "off for your app (Config::PROBE_DEFAULT); the arena always has it", parse: ->(v) { v }
      declare :profile, "--profile", "a sampling CPU profile (stackprof) of every server process in every trial, and " \
                                     "where two setups or refs differ, per method, decided (docs/running.md)",
              parse: ->(_) { true }
      declare :resume, "--resume DIR", "continue an interrupted run: the trials DIR holds are skipped; the app " \
                                       "(--app), --url and --load-host it used are given again, not taken from DIR",
              parse: ->(v) { Store::Target.expand(v, option: "--resume") }

      # The SLO: capacity and tune
      declare :slo_p99, "--slo-p99 TIME", "p99 latency objective: 300ms, 0.5s or milliseconds",
              parse: ->(v) { Units.millis(v) }
      declare :max_errors, "--max-errors PERCENT", "error budget in % of responses",
              default: "0.1", parse: ->(v) { Units.percent(v) }

      # capacity only
      declare :sustain, "--sustain SECONDS", "re-run the open-loop knee this long to confirm it holds (e.g. 60)",
              parse: ->(v) { Units.number(v, flag: "--sustain", min: 1) }
      declare :loop, "--loop KIND", "closed, open or both", default: "both", parse: ->(v) { Options.loops(v) }
      declare :max_levels, "--max-levels N", "measured levels per search at most",
              default: "10", parse: ->(v) { Units.count(v, flag: "--max-levels", max: 50) }

      # tune only
      declare :memory_budget, "--memory-budget SIZE", "memory the app may use (PSS): #{Units::MEMORY_FORMS}",
              parse: ->(v) { Units.mebibytes(v) }
      declare :servers, "--servers LIST", "servers to try (#{Server.keys.join(', ')})",
              default: Server.tune_defaults.join(","), parse: ->(v) { Options.servers(v) }
      time_budget :time_budget, "stop searching after this long: 10m, 90s, 1h", default: "10m", min: 10
      declare :max_workers, "--max-workers N", "at most N workers", rule: "what fits the budget, at most 2 x cores",
              parse: ->(v) { Units.count(v, flag: "--max-workers", max: Setup::MAX_WORKERS) }
      declare :predict, "--no-predict", "round 1 in its plain order, not nearest the probe split's prediction first " \
                                        "(the prediction is still printed)", parse: ->(_) { false }
      # The servers' own tune options (Server::Base.ladder_option): the thread
      # counts to try for that server instead of its thread_ladder, the
      # option keyed KEY_threads. LADDERS: {server key => option key}.
      LADDERS = Server::ADAPTERS.select { |_, klass| klass.ladder_option }.to_h do |server, klass|
        flag, help = klass.ladder_option
        declare :"#{server}_threads", flag, help, default: klass.thread_ladder.join(","),
                                                  parse: ->(v) { Units.counts(v, flag: flag.split.first, max: Setup::MAX_THREADS) }
        [server, :"#{server}_threads"]
      end.freeze

      # report: rendering a stored run (--margin above; the formats and the
      # options each reads: Report::Formats)
      declare :format, "-f", "--format FORMAT", -> { Report::Formats.load_all.values.map { |f| "#{f.name} (#{f.help})" }.join(", ") },
              default: "table"
      declare :pivot, "--pivot BY", ["with --format csv: the seed study's pivots instead of one row per trial:",
                                     "  endpoint     per endpoint and metric, setups x concurrency",
                                     "  concurrency  per concurrency and metric, endpoints x setups",
                                     "  (without --pivot, csv is tidy: one row per trial, one column per variable)"]
      declare :output, "-o", "--output FILE", "write to FILE instead of standard output"
      declare :why, "--why", ["with the table: after the grid of verdict labels, each cell's full reasons",
                              "  (the numbers behind each label; html and md always carry them)"], parse: ->(_) { true }

      # compare: two stored runs (--margin above)
      declare :pairs, "--pair A=B", ["compare RUN_B's setup B with RUN_A's setup A, e.g. --pair \"puma x2:5=puma x2:5 on yjit\"",
                                     "(repeatable; automatic when each run has one setup; rows show \"A → B\")"],
              many: true, parse: ->(v) { Options.pair(v) }

      module_function

      # --pair "A=B" -> [A, B], each label's spaces as a label has them.
      def pair(text)
        a, b = text.split("=", 2).map { |label| label.to_s.strip.squeeze(" ") }
        return [a, b] unless b.to_s.empty? || a.to_s.empty?

        raise UsageError, "--pair #{text.inspect}: write \"SETUP IN RUN_A=SETUP IN RUN_B\""
      end

      # Adds the options named by keys to parser o, storing into values.
      # defaults: {key => text}, the command's own defaults (parsed, applied
      # unless given, shown); rules: {key => text} shown only; required: keys
      # the command refuses to run without (shown as such).
      def define(o, values, keys, defaults: {}, rules: {}, required: [])
        keys.each do |key|
          option = DECLARED.fetch(key)
          first, *more = Array(option.help.respond_to?(:call) ? option.help.call : option.help)
          o.on(*option.flags, *type(option), "#{first}#{suffix(option, defaults, rules, required)}", *more) do |v|
            value = option.parse.call(v)
            option.many ? (values[key] ||= []) << value : values[key] = value
          end
        end
        # The defaults typed as text (the declaration's, or the command's
        # own) go in first; what the command line gives replaces them as
        # OptionParser reads it (repeatable options have none).
        keys.each do |key|
          text = defaults.fetch(key) { DECLARED.fetch(key).default }
          values[key] = DECLARED.fetch(key).parse.call(text) if text.is_a?(String)
        end
      end

      # --loop both|open|closed -> the loops to search.
      def loops(text)
        return text == "both" ? %w[closed open] : [text] if %w[both open closed].include?(text)

        raise UsageError, "--loop #{text.inspect}: write closed, open or both"
      end

      # " (required)", " (default 2)" or " (default: a rule)", from the declaration.
      def suffix(option, defaults, rules, required)
        return " (required)" if required.include?(option.key)
        return " (default #{defaults[option.key]})" if defaults.key?(option.key)
        return " (default: #{rules[option.key]})" if rules.key?(option.key)

        shown = shown_default(option)
        return " (default #{shown})" if shown

        option.rule ? " (default: #{option.rule})" : ""
      end

      def shown_default(option)
        return option.default unless option.default == :config

        value = Config::DEFAULTS.fetch(option.key)
        case value
        when Array then value.join(",")
        when Float then value == value.round ? value.round.to_s : value.to_s
        else value&.to_s
        end
      end

      # OptionParser's own conversion: lists arrive as an Array.
      def type(option)
        %i[concurrency rate].include?(option.key) ? [Array] : []
      end

      # --servers puma,unicorn -> ["puma", "unicorn"], each a registered server.
      def servers(text)
        names = text.to_s.split(",").map { |s| s.strip.downcase }.reject(&:empty?).uniq
        raise UsageError, "--servers #{text.inspect}: name at least one server, e.g. --servers puma,unicorn" if names.empty?

        bad = names.find { |n| !Server::ADAPTERS.key?(n) }
        return names unless bad

        raise UsageError, "--servers #{text.inspect}: unknown server #{bad.inspect}#{Suggest.did_you_mean(bad, Server.keys)}; " \
                          "accepted: #{Server.keys.join(', ')}, separated by commas"
      end
    end
  end
end
