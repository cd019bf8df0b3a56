# frozen_string_literal: true

module Rackbench
  module Stats
    # Where a cell's req/s varies: between boots, or between trials (takes)
    # of one boot? Measured when a run takes each cell several times per
    # boot (run --per-boot K), and used to say how many takes per boot buy
    # the narrowest interval for the time (Kalibera & Jones, "Rigorous
    # Benchmarking in Reasonable Time", ISMM 2013).
    #
    # Method: on log req/s (so spreads read as shares), a one-way random-
    # effects split over the cell's boots (Store::Takes keeps each boot's
    # takes in "take_rps"):
    #   within  s_w^2 = pooled variance of the takes around their boot's mean
    #   between s_b^2 = variance of the boots' means - s_w^2 / k (k: takes
    #           per boot), floored at 0: the part a new boot adds
    # and Kalibera & Jones's optimal takes per boot,
    #   k* = ceil(sqrt((c_boot / c_take) * (s_w^2 / s_b^2))),
    # with c_boot what a boot costs before its first take (its boot seconds
    # and a warm-up for each endpoint it serves) and c_take what one more
    # take per boot costs: a take repeats every endpoint x level of the boot
    # (run --per-boot K takes each cell K times on each boot), so it is that
    # many trials' duration and cool-down, not one (costed per cell, the
    # quick plan's 8 cells a boot made k* about sqrt(8) too large);
    # capped at MAX_TAKES (s_b^2 = 0: boots add nothing measurable, so takes
    # are the cheaper). Needs 2 boots of at least 2 takes each.
    # Limits: few boots make s_b^2 itself uncertain (3 boots: a factor of 2
    # either way is common), so k* is a direction, not a constant.
    module BootVariance
      MAX_TAKES = 20
      Cell = Struct.new(:endpoint, :setup, :level, :boots, :takes, :within_pct, :between_pct, :best_takes,
                        keyword_init: true) do
        def to_h
          { "endpoint" => endpoint, "setup" => setup, "level" => level, "boots" => boots, "takes_per_boot" => takes,
            "within_boot_pct" => within_pct.round(2), "between_boots_pct" => between_pct.round(2),
            "best_takes_per_boot" => best_takes }
        end
      end

      module_function

      # cells: Stats::Cells#cells; costs: ->(setup) { [boot s, warm-up s per
      # endpoint, s per trial] } (BootVariance.costs). Each boot of a setup
      # serves that setup's cells here: their count prices a take.
      def of(cells, costs)
        per_setup = cells.group_by(&:setup)
        cells.filter_map do |cell|
          boots = cell.trials.filter_map { |t| Array(t["take_rps"]).select { |v| v.is_a?(Numeric) && v.positive? } }
                      .select { |takes| takes.size >= 2 }
          next if boots.size < 2

          mine = per_setup.fetch(cell.setup)
          split(cell, boots, boot_costs(costs.call(cell.setup), mine.size, mine.map(&:endpoint).uniq.size))
        end
      end

      # [c_boot, c_take] of a boot serving `cells` cells over `endpoints` endpoints.
      def boot_costs((boot_s, warmup_s, trial_s), cells, endpoints)
        [boot_s + warmup_s * endpoints, trial_s * cells]
      end

      def split(cell, boots, (c_boot, c_take))
        logs = boots.map { |takes| takes.map { |v| Math.log(v) } }
        means = logs.map { |xs| xs.sum / xs.size }
        within = logs.zip(means).sum { |xs, m| xs.sum { |x| (x - m)**2 } } / logs.sum { |xs| xs.size - 1 }
        k = logs.sum(&:size).fdiv(logs.size)
        between = [sample_var(means) - within / k, 0.0].max
        Cell.new(endpoint: cell.endpoint, setup: cell.setup, level: cell.level, boots: boots.size, takes: k.round(1),
                 within_pct: Math.sqrt(within) * 100, between_pct: Math.sqrt(between) * 100,
                 best_takes: best_takes(within, between, c_boot, c_take))
      end

      # What a boot and a trial cost here, from a run's own rows:
      # ->(setup) { [its mean boot_s in setups.jsonl, the warm-up before an
      # endpoint's first trial, a trial's duration plus cool-down] }.
      # setups: setups.jsonl rows; config: meta.json's (string keys) or a
      # Config (symbol keys).
      def costs(setups, config)
        get = ->(k) { config[k.to_s] || config[k.to_sym] }
        warmup = get.call(:warmup).is_a?(Numeric) ? get.call(:warmup) : 0.0
        take = get.call(:duration).to_f + get.call(:cooldown).to_f
        boot_s = setups.select { |s| s["status"] == "ok" && s["boot_s"].is_a?(Numeric) }.group_by { |s| s["setup"] }
                       .transform_values { |rows| rows.sum { |r| r["boot_s"] } / rows.size }
        ->(setup) { [boot_s.fetch(setup, 0.0), warmup, take] }
      end

      def sample_var(xs)
        m = xs.sum / xs.size
        xs.sum { |x| (x - m)**2 } / (xs.size - 1)
      end

      def best_takes(within, between, c_boot, c_take)
        return MAX_TAKES if between.zero?
        return 1 if within.zero? || c_take.to_f <= 0

        Math.sqrt((c_boot.to_f / c_take) * (within / between)).ceil.clamp(1, MAX_TAKES)
      end
    end
  end
end
