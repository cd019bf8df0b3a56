# frozen_string_literal: true

require_relative "plan/config"
require_relative "plan/request_path"
require_relative "plan/scenario"
require_relative "workload/git_refs"

module Rackbench
  # What to run: setups x endpoints x load levels x repetitions, expanded into
  # trials in the order the runner takes them.
  #
  # Order: round (a repetition), then setup (one boot per setup and round),
  # then endpoint, then level. Each round measures every setup once, in a
  # fresh random order drawn from the run's seed (config[:seed], stored, so
  # --resume keeps it): Randomized Multiple Interleaved Trials (Abedi &
  # Brecht, ICPE 2017), so that machine drift spreads over all setups
  # instead of biasing one, and each round pairs the setups under the same
  # conditions (Stats::Decision's paired log ratios). A fixed rotation would
  # pair a setup with the same neighbour in every round. (With --boot
  # together the runner measures a round cell by cell instead: every
  # setup at each endpoint and level in the round's order, Runner::SharedRound.)
  class Plan
    # A load level is a concurrency (closed loop) or a rate (open loop).
    # take: which of a boot's measurements of the cell it is (--per-boot K:
    # takes 1..K back to back on one boot; nil: the only one).
    Trial = Struct.new(:setup, :endpoint, :concurrency, :rate, :repetition, :take, keyword_init: true) do
      # Identifies a trial across runs (used by --resume and compare); a
      # second or later take adds "|tN".
      def key
        [setup.label, endpoint, rate ? "r=#{rate}" : concurrency, repetition, (take && take > 1 ? "t#{take}" : nil)].compact.join("|")
      end

      def level_label
        rate ? "r=#{format('%g', rate)}" : "c=#{concurrency}"
      end
    end

    # A setup standing for a server rackbench does not manage (--url).
    EXTERNAL_SERVER = "external"

    attr_reader :config

    def initialize(config)
      @config = config
    end

    def setups
      return [Setup.new(label: config[:url], server: EXTERNAL_SERVER, workers: 0, threads: 0, preload: false)] if external?

      @setups ||= with_refs(base_setups)
    end

    # The setups as given (before run --ref makes one per commit).
    def base_setups
      @base_setups ||= config[:setups].empty? ? Config.default_setups.map { |s| Setup.parse(s) } : config[:setups]
    end

    # run --ref: [[the setup's own label, [its label per ref, in --ref order]]].
    def ref_groups
      refs = Array(config[:refs])
      return [] if refs.empty?

      base_setups.zip(setups.each_slice(refs.size)).map { |base, group| [base.label, group.map(&:label)] }
    end

    # run --ref: every setup once per commit of the app, labelled by the
    # commit (main@1a2b3c4; with several setups, "puma x2:5 main@1a2b3c4").
    def with_refs(base)
      refs = Array(config[:refs])
      return base if refs.empty?

      base.flat_map do |s|
        refs.map do |r|
          tag = Workload::GitRefs::Ref.new(name: r["name"], sha: r["sha"]).label
          s.dup.tap do |d|
            d.ref = r
            d.label = base.size == 1 ? tag : "#{s.label} #{tag}"
          end
        end
      end
    end

    def endpoints
      return [scenario.label] if scenario

      return config[:endpoints] if config[:endpoints].any?

      own_app? ? [OWN_APP_ENDPOINT] : Config::QUICK_ENDPOINTS
    end

    # Without --endpoint, the user's own app (--app PATH, or --url) is loaded
    # at its root: the quick plan's endpoints are the built-in apps' paths.
    OWN_APP_ENDPOINT = "/"

    def own_app?
      external? || !(config[:app].nil? || Config::BUILT_IN_APPS.include?(config[:app]))
    end

    # The weighted scenario (its label stands as the one endpoint), or nil.
    def scenario
      return nil if config[:scenario].nil?

      @scenario ||= Scenario.parse(config[:scenario])
    end

    # The path a request to this endpoint goes to (a scenario's first path;
    # the load generator picks the others per request).
    def path_of(endpoint)
      RequestPath.encode(scenario && endpoint == scenario.label ? scenario.paths.first : endpoint)
    end

    def levels
      open_loop? ? config[:rate] : config[:concurrency]
    end

    def open_loop?
      config[:rate].any?
    end

    def external?
      !config[:url].nil?
    end

    # [[repetition, setup], ...]
    def schedule
      (1..config[:repeat]).flat_map { |rep| round(rep).map { |setup| [rep, setup] } }
    end

    # Round rep's setups in its own random order, drawn from the seed and
    # the round's number alone, so a round added later (run --decide) or
    # resumed has the same order whenever it is drawn.
    def round(rep)
      setups.shuffle(random: Random.new(config[:seed].to_i * 1_000_003 + rep))
    end

    # A boot's trials: each endpoint at each level, takes_for(repetition)
    # times back to back (takes 1..K, Kalibera & Jones's iterations within
    # one execution), so the report can tell the variance between boots
    # from the variance between trials of one boot (Stats::BootVariance).
    def trials_for(setup, repetition)
      per_boot = takes_for(repetition)
      endpoints.product(levels).flat_map do |endpoint, level|
        (1..per_boot).map do |take|
          Trial.new(setup: setup, endpoint: endpoint, concurrency: open_loop? ? nil : level,
                    rate: open_loop? ? level : nil, repetition: repetition, take: auto_takes? || per_boot > 1 ? take : nil)
        end
      end
    end

    # --per-boot auto: the first PILOT_ROUNDS rounds take every cell
    # PILOT_TAKES times per boot (the fewest that split the variance); the
    # rounds after them take what #choose_takes set (Runner::TakesChoice,
    # from the pilots' own variance), or PILOT_TAKES until it is set.
    PILOT_ROUNDS = Config::PILOT_ROUNDS
    PILOT_TAKES = Config::PILOT_TAKES

    def takes_for(repetition)
      return [config[:per_boot].to_i, 1].max unless auto_takes?

      repetition <= PILOT_ROUNDS || @chosen_takes.nil? ? PILOT_TAKES : @chosen_takes
    end

    def auto_takes?
      config[:per_boot] == Config::AUTO
    end

    # The takes per boot of the rounds after the pilots (--per-boot auto).
    def choose_takes(takes)
      @chosen_takes = Integer(takes)
    end
    attr_reader :chosen_takes

    def trials
      schedule.flat_map { |rep, setup| trials_for(setup, rep) }
    end

    def to_h
      { "setups" => setups.map(&:to_h), "endpoints" => endpoints, "concurrency" => open_loop? ? nil : levels, "rate" => open_loop? ? levels : nil,
        "loop" => open_loop? ? "open" : "closed",
        "repeat" => config[:repeat], **(auto_takes? || config[:per_boot].to_i > 1 ? { "per_boot" => config[:per_boot] } : {}),
        "duration_s" => config[:duration], "warmup_s" => config[:warmup],
        "cooldown_s" => config[:cooldown], "engine" => config[:engine], "timeout_s" => config[:timeout],
        "url" => config[:url], "app" => config[:app], "trials" => trials.size }
    end
  end
end
