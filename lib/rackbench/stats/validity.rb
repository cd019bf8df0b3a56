# frozen_string_literal: true

require_relative "littles_law"
require_relative "../load"

module Rackbench
  module Stats
    # Whether a cell's figures can be trusted, read from its stored trials
    # alone. A trial is not valid when:
    #
    #   short     its run was shorter than FACTOR x W, W its mean time in the
    #             system. Why: a trial starts with every connection sending at
    #             once to a server with an empty queue, so the first round of
    #             responses waits less than the steady state (the queue builds
    #             over about one W), and the requests still out at the end are
    #             lost. Over a run of T seconds the mean latency comes out short
    #             by about W / 2T, and req/s counted over the whole run by up to
    #             W / T. At T >= 10 W the mean is within about 5%, the default
    #             margin of the decisions. Measured here: unicorn x2 on
    #             /pause/0.05 at c=16 (W about 0.41 s) had a mean of 379 ms over
    #             -d 2 and 411 ms over -d 10 (-8%), with p99 and the windowed
    #             req/s within 1% of each other.
    #             W: in a closed loop Little's law's c / req/s (the measured mean
    #             of a short trial is itself cut short, and wrk's synthetic
    #             samples inflate it); in an open loop, or without req/s, the
    #             measured mean latency. The -d it needs: FACTOR x W, rounded up
    #             to whole seconds (wrk's -d takes whole seconds).
    #   little    a closed loop's Little's-law check (LittlesLaw) fails by more
    #             than its TOLERANCE, except wrk's own latency correction:
    #             req/s x mean latency above c on a wrk trial comes from the
    #             synthetic samples wrk adds for slow responses, so the latency
    #             overstates while req/s stands; that is kept as a note (artifact).
    #             Below c on a trial long enough by the rule above, the cause is
    #             connect time outside the latency, errors answered fast or
    #             requests never answered: a longer -d would not help, and the
    #             note names no -d.
    #   schedule  the trial says so itself ("valid": false): an open-loop
    #             schedule that slipped, or a load host that failed.
    #
    # A cell is not valid when at least half of its trials are not (one of
    # one, one of two, two of three): its median is then one of them.
    module Validity
      FACTOR = 10

      Problem = Struct.new(:kind, :text, keyword_init: true)

      # problems: [Problem]; needs_s: the -d the trial needs (nil: length is
      # not the problem); artifact: the LittlesLaw::Check of wrk's correction.
      Trial = Struct.new(:problems, :needs_s, :artifact, keyword_init: true) do
        def valid? = problems.empty?
      end

      # invalid: trials not valid, of total; problems: theirs (distinct by
      # text); needs_s: the longest -d any of them needs; artifacts: the
      # trials' checks that only show wrk's correction.
      Cell = Struct.new(:invalid, :total, :problems, :needs_s, :artifacts, keyword_init: true) do
        def valid? = invalid.zero? || invalid * 2 < total
        def texts = problems.map(&:text)
        def kinds = problems.map(&:kind).uniq

        # "not valid (2 of 3 trials): trial too short ...; ...: -d 5"
        def note
          return nil if valid?

          count = total > 1 ? " (#{invalid} of #{total} trials)" : ""
          "not valid#{count}: #{texts.join('; ')}"
        end
      end

      module_function

      def cell(trials)
        checks = trials.map { |t| trial(t) }
        bad = checks.reject(&:valid?)
        # A trial too short is named once: the one that needs the longest -d.
        worst = bad.select(&:needs_s).max_by(&:needs_s)&.problems&.find { |p| p.kind == "short" }
        others = bad.flat_map(&:problems).reject { |p| p.kind == "short" }
        Cell.new(invalid: bad.size, total: checks.size, problems: ([worst].compact + others).uniq(&:text),
                 needs_s: bad.filter_map(&:needs_s).max, artifacts: checks.filter_map(&:artifact))
      end

      def trial(record)
        problems = []
        if record["valid"] == false
          problems << Problem.new(kind: "schedule", text: "the trial did not hold (#{record['invalid_reason'] || 'rate not achieved'})")
        end
        needs = needs_s(record)
        if needs
          problems << Problem.new(kind: "short", text: "trial too short for its latency (#{seconds(run_s(record))} s run, " \
                                                       "#{seconds(mean_time_s(record))} s per request): -d #{needs} or longer " \
                                                       "(#{FACTOR}x the time per request)")
        end
        check = LittlesLaw.check(record)
        artifact = nil
        if check&.holds == false
          if wrk_correction?(record, check)
            artifact = check
          elsif !(needs && check.ratio < 1) # too short explains too few in flight; the note above says what to do
            problems << Problem.new(kind: "little", text: little_text(record, check))
          end
        end
        Trial.new(problems: problems, needs_s: needs, artifact: artifact)
      end

      # The -d the trial needs, or nil when its run was long enough.
      def needs_s(record)
        run = run_s(record)
        w = mean_time_s(record)
        return nil unless run&.positive? && w&.positive? && run < FACTOR * w

        (FACTOR * w).ceil
      end

      # The engine's whole run: a windowed count's run (CountWindow) or duration_s.
      def run_s(record)
        record.dig("run", "duration_s") || record["duration_s"]
      end

      def mean_time_s(record)
        rps = record["rps"].to_f
        c = record["concurrency"].to_f
        return c / rps if record["loop"] != "open" && rps.positive? && c.positive?

        mean = record.dig("latency_ms", "mean")
        mean && mean / 1000.0
      end

      # wrk's synthetic samples raise the mean (LittlesLaw::HIGH): an
      # artifact of a trial whose engine makes them up (Load.synthetic?),
      # not a wrong figure of req/s.
      def wrk_correction?(record, check)
        check.ratio > 1 && Load.synthetic?(record["engine"])
      end

      def little_text(record, check)
        return check.note if check.ratio < 1 || Load.synthetic?(record["engine"])

        "Little's law does not hold: c=#{check.expected.round} but req/s × mean latency = #{check.measured} " \
          "(#{format('%+d', ((check.ratio - 1) * 100).round)}%): the engine's latency and throughput disagree"
      end

      def seconds(value)
        v = value.to_f
        v >= 10 ? v.round.to_s : format("%.2g", v)
      end
    end
  end
end
