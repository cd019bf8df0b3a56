# frozen_string_literal: true

require_relative "../error"
require_relative "../units"
require_relative "setup"
require_relative "../process_control/affinity"

module Rackbench
  module Config
    # What each setting may hold alone, parsed where it enters
    # (Config.validate, before the rules) by Units with the setting's own
    # limits. What settings may hold together is the rules' (Config::RULES).
    module Values
      # Seconds (or a share, or a rate) from their least up (Units.number).
      # Timeouts of 0 would fail every request or boot: they must be at least
      # the smallest that can pass: a millisecond for a request or a health
      # check (wrk's timeouts count whole milliseconds), 0.1 s for a boot (no
      # Ruby server starts and answers sooner).
      NUMBERS = {
        duration: { min: 0.5 }, warmup: { word: "steady" }, warmup_window: { min: 0.5 },
        warmup_tolerance: { min: 0.001, capped: false, unit: "(a share, e.g. 0.05)" }, warmup_max: {}, cooldown: {},
        timeout: { above: 0.001 }, boot_timeout: { above: 0.1, fails: "boot" }, stop_timeout: {}, upstream_delay: {},
        expected_latency: {}, health_timeout: { above: 0.001, fails: "health check" }
      }.freeze
      RATE = { min: 0.1, capped: false, unit: "requests per second" }.freeze
      STEADY = "steady"
      AUTO = "auto" # --per-boot auto (Config::Rules::PerBoot)
      MAX_CONCURRENCY = 10_000
      MAX_REPEAT = 1000
      MAX_PER_BOOT = 20
      # settings whose flag is not their key's
      FLAGS = { decide_time: "--time-budget", setups: "--setup", refs: "--ref", endpoints: "--endpoint",
                load_hosts: "--load-host" }.freeze

      module_function

      # Every value of cfg (a hash holding every Config key) parsed in place.
      def parse(cfg)
        numbers(cfg)
        cfg[:repeat] = Units.count(cfg[:repeat], flag: "--repeat", max: MAX_REPEAT)
        cfg[:upstream_bytes] = Units.count(cfg[:upstream_bytes], flag: "--upstream-bytes")
        cfg[:per_boot] = per_boot(cfg[:per_boot])
        cfg[:concurrency] = Array(cfg[:concurrency]).flatten.map { |c| Units.count(c, flag: "--concurrency", max: MAX_CONCURRENCY) }
        raise UsageError, "concurrency needs at least one level, e.g. --concurrency 1,8,32" if cfg[:concurrency].empty?

        cfg[:rate] = Array(cfg[:rate]).flatten.map { |r| Units.number(r, flag: "--rate", **RATE) }
        %i[connections threads pid].each { |k| cfg[k] = Units.count(cfg[k], flag: flag(k)) unless cfg[k].nil? }
        cfg[:port] = Units.count(cfg[:port], flag: "--port", max: 65_535) unless cfg[:port].nil?
        cfg[:setups] = Array(cfg[:setups]).map { |s| s.is_a?(Setup) ? s : Setup.parse(s) }
        paths(cfg)
        cfg[:margin] = Units.margin(cfg[:margin])
        cfg[:seed] = seed(cfg[:seed])
        decide(cfg)
        cfg[:boot] = Units.choice(cfg[:boot], %w[apart together], flag: "--boot")
        cfg[:aslr] = Units.choice(cfg[:aslr], %w[on off], flag: "--aslr")
        cfg[:cpus] = ProcessControl::Affinity.parse(cfg[:cpus]) unless cfg[:cpus].is_a?(ProcessControl::Affinity::Sets)
        cfg
      end

      def numbers(cfg)
        cfg[:warmup] = STEADY if cfg[:warmup].is_a?(String) && cfg[:warmup].strip.casecmp?(STEADY)
        NUMBERS.each do |k, limits|
          next if (k == :warmup && cfg[k] == STEADY) || (k == :expected_latency && cfg[k].nil?)

          cfg[k] = Units.number(cfg[k], flag: flag(k), **limits)
        end
      end

      def paths(cfg)
        cfg[:endpoints] = Array(cfg[:endpoints]).map { |e| Units.endpoint(e) }
        cfg[:health_path] = Units.endpoint(cfg[:health_path]) unless cfg[:health_path].nil?
        cfg[:expect_status] = Units.statuses(cfg[:expect_status]) unless cfg[:expect_status].nil?
      end

      # --decide's own values: its rounds, its time and itself.
      def decide(cfg)
        max = Units.whole(cfg[:max_rounds].to_s)
        unless max&.between?(2, MAX_REPEAT)
          raise UsageError, "--max-rounds must be a whole number of 2 or more, at most #{MAX_REPEAT} (got #{cfg[:max_rounds].inspect})"
        end

        cfg[:max_rounds] = max
        cfg[:decide_time] = Units.number(cfg[:decide_time], flag: flag(:decide_time), min: 1)
        cfg[:decide] = cfg[:decide] == true
      end

      # --per-boot K (1..MAX_PER_BOOT) or auto (which needs rounds: Rules::PerBoot).
      def per_boot(value)
        return AUTO if value.to_s.strip.casecmp?(AUTO)

        n = Units.whole(value)
        return n if n&.between?(1, MAX_PER_BOOT)

        raise UsageError, "--per-boot must be a whole number from 1 to #{MAX_PER_BOOT}, or auto (got #{value.inspect})"
      end

      # The seed of the rounds' random orders: drawn when none is given, and
      # stored with the config so a resumed run keeps its orders.
      def seed(value)
        return Random.new_seed % (2**31) if value.nil?

        n = Units.whole(value.to_s)
        return n if n && n >= 0

        raise UsageError, "--seed must be a whole number >= 0 (got #{value.inspect})"
      end

      def flag(key)
        FLAGS.fetch(key) { "--#{key.to_s.tr('_', '-')}" }
      end
    end
  end
end
