# frozen_string_literal: true

require_relative "entry"
require_relative "candidates"
require_relative "confirm_round"
require_relative "../../server"
require_relative "../../plan/setup"
require_relative "../../stats/summary"
require_relative "racing"
require_relative "knee_search"

module Rackbench
  module Search
    class Tune
      # After round 3: is the winner's optimum bracketed, or does it sit on
      # the edge of the space searched (the most threads its server's ladder
      # tried, Server::Base.thread_ladder or --puma-threads, or
      # the most workers the memory budget and the core cap allowed)? Then
      # the space is extended one step past that edge, while the time budget
      # allows, and the step is measured like any candidate:
      #
      # 1. probe it (round 1's closed-loop probe). Not above the winner's
      #    probe by more than the noise band: the optimum is bracketed, bound
      #    by CPU when the machine was busy (>= CPU_BUSY of its cores) during
      #    the step's probe, else by whatever stops the server gaining (the
      #    GVL, a lock: "no gain");
      # 2. above it: knee-search it (round 2). A knee not above the winner's
      #    by the noise band: bracketed, bound by the SLO; above it: the step
      #    is the new leader, confirmed against the old one (round 3, when
      #    time allows), and the next step is tried from it. A knee search
      #    whose open-loop levels the client could not keep on schedule
      #    (invalid: the load generator fell behind) leaves it unbracketed.
      # A step that does not fit the memory budget brackets the optimum
      # (bound: memory); the time budget running out leaves it unbracketed.
      #
      # A round object over the shared State, as MemoryRound and
      # ConfirmRound: it takes what rounds 0-3 found (the entries, to which
      # it appends its steps; round 3's result; round 0's limits and noise
      # band) and returns a Result: the edge record for recommendation.json
      # and round 3's result, replaced when a step was confirmed against the
      # leader.
      class EdgeRound
        THREAD_STEPS = [24, 32, 48, 64, 96, 128].freeze
        CPU_BUSY = 0.85
        MAX_STEPS = 4
        Result = Struct.new(:edge, :confirmed, keyword_init: true)

        # ladders: {server => thread counts} replacing a server's own ladder
        # (--puma-threads); a step's knee is searched as round 2 does (KneeSearch).
        def initialize(state, entries:, confirmed:, limits:, band:, cores:, max_workers:, ladders: {}, steps: MAX_STEPS)
          @s = state
          @entries = entries
          @confirmed = confirmed
          @limits = limits
          @band = band
          @cores = cores
          @max_workers = max_workers
          @ladders = ladders
          @steps = steps
        end

        def call
          @edge = { "bracketed" => nil, "bound" => nil, "steps" => [] }
          @steps.times do
            leader = edge_leader or break
            step = beyond(leader)
            break edge_done(leader, true, "inside the space", "#{leader.label} is not on an edge of the space searched") unless step
            break unless try_step(leader, *step)
          end
          @s.journal.log(@edge.merge("type" => "edges"))
          @s.say.call("edges: #{@edge['note']}") if @edge["note"]
          Result.new(edge: @edge, confirmed: @confirmed)
        end

        private

        def ranked
          @confirmed&.ranked
        end

        def alive
          @entries.select(&:alive?)
        end

        # Returns true to try the next step from the new leader. bound: why
        # the step may not be taken ("memory", or "--max-workers": the
        # user's own limit, which leaves the optimum unbracketed).
        def try_step(leader, setup, direction, bound, why = nil)
          return edge_done(leader, bound == "memory", bound, "#{setup.label} is past it: #{why}") if bound

          unless @s.deadline.allows?(@s.lab.probe_cost + @s.lab.knee_cost(KneeSearch::LEVELS))
            @s.stop!("time budget")
            return edge_done(leader, false, "time budget", "no time left to try #{setup.label} past the #{direction} edge")
          end
          step = Entry.for(Candidates::Candidate.new(setup: setup, estimate_mb: nil))
          @entries << step
          @s.say.call("edges: #{leader.label} has the most #{direction} searched; trying #{setup.label}")
          @s.lab.expect(1)
          o = @s.lab.probe(setup)
          step.add(o.records, into: step.probes)
          return step_failed(leader, step, o.failure || "stopped") if o.failure || o.records.empty?

          record_step(step, direction)
          unless step.probe_rps > leader.probe_rps * (1 + @band.reference)
            return edge_done(leader, true, cpu_bound?(step) ? "CPU" : "no gain",
                             "#{setup.label} probed #{Racing.rps(step.probe_rps)} req/s vs #{Racing.rps(leader.probe_rps)}: " \
                             "no gain beyond the noise band#{cpu_bound?(step) ? " with the machine's CPU #{busy_pct(step)}% busy" : ''}")
          end

          KneeSearch.new(@s).call(step)
          record_step(step, direction)
          if (slipped = client_bound(step))
            return edge_done(leader, false, "load generator", "the knee search of #{setup.label} was limited by the load " \
                                                              "generator (#{slipped}); measure with more client cores or from another host")
          end
          if step.knee_rps.nil? || leader.knee_rps.nil? || step.knee_rps <= leader.knee_rps * (1 + @band.reference)
            return edge_done(leader, true, "SLO", "#{setup.label} serves more when saturated (#{Racing.rps(step.probe_rps)} req/s) " \
                                                  "but its knee within the SLO (#{Racing.rps(step.knee_rps)} req/s) is no higher")
          end

          @edge["extended"] = true
          return true unless ranked&.any?

          confirmed = ConfirmRound.new(@s).call([step, leader])
          unless confirmed
            return edge_done(leader, false, "time budget", "#{setup.label} reached a higher knee " \
                                                           "(#{Racing.rps(step.knee_rps)} req/s) but no time was left to confirm it")
          end
          @confirmed = confirmed
          return true if ranked.first.equal?(step)

          edge_done(ranked.first, true, "SLO", "round 3's paired rounds ranked #{ranked.first.label} above #{setup.label}")
        end

        # The current winner: confirmed first, else the best knee, else the best probe.
        def edge_leader
          return ranked.first if ranked&.any?

          alive.select(&:knee_rps).max_by(&:knee_rps) || alive.select { |e| e.probes.any? }.max_by(&:probe_rps)
        end

        # [setup, direction, why it does not fit (nil: fits)] past the
        # leader's edge, or nil when it is on none.
        def beyond(leader)
          s = leader.setup
          spec = Server::ADAPTERS.fetch(s.server)
          threaded = !spec.threads.nil?
          top_threads = (ladder(s.server) + tried(:threads)).max
          if threaded && s.threads >= top_threads
            more = THREAD_STEPS.find { |t| t > s.threads } or return nil
            return [Setup.parse("#{s.server} x#{s.workers}:#{more}"), "threads", nil]
          end
          limit = @limits&.find { |l| l.server == s.server }
          return nil unless limit && !spec.only_one_process? && s.workers >= limit.max_workers

          more = Candidates::WORKER_LADDER.find { |w| w > s.workers } or return nil
          setup = Setup.parse(threaded ? "#{s.server} x#{more}:#{s.threads}" : "#{s.server} x#{more}")
          return [setup, "workers", "--max-workers", limit.cap_reason] if @max_workers && s.workers >= @max_workers
          return [setup, "workers", "memory", limit.note] if limit.fit && more > limit.fit

          [setup, "workers", nil]
        end

        # The thread counts tried for server: its ladder, or the one given for it.
        def ladder(server)
          @ladders[server] || Server.adapter_class(server).thread_ladder
        end

        def tried(what)
          @edge["steps"].map { |st| st[what.to_s] }.compact
        end

        def record_step(step, direction)
          row = step.to_row.merge("direction" => direction, "busy_pct" => busy_pct(step))
          @edge["steps"].reject! { |st| st["setup"] == step.label }
          @edge["steps"] << row
        end

        # The reason of an open-loop level the client could not keep to its
        # schedule (Load::OpenLoopValidity), or nil.
        def client_bound(step)
          bad = step.records.find { |r| r["loop"] == "open" && r["valid"] == false && r["invalid_reason"].to_s.include?("load generator") }
          bad && bad["invalid_reason"][/the load generator fell behind its schedule[^;:]*/]
        end

        def step_failed(leader, step, why)
          step.drop!(4, why)
          edge_done(leader, true, "errors", "#{step.label} failed: #{why}")
        end

        # The machine's CPU during the step's probes, % of all its cores.
        def busy_pct(entry)
          pcts = entry.probes.filter_map { |r| r.dig("machine", "cpu_pct") }
          pcts.empty? ? nil : (Stats::Summary.of(pcts).median / @cores).round
        end

        def cpu_bound?(entry)
          pct = busy_pct(entry)
          pct && pct >= CPU_BUSY * 100
        end

        def edge_done(leader, bracketed, bound, why)
          steps = @edge["steps"].map { |st| st["setup"] }
          @edge.merge!("bracketed" => bracketed, "bound" => bound, "leader" => leader.label,
                       "note" => (bracketed ? "optimum bracketed (bound: #{bound}): " : "optimum NOT bracketed (#{bound}): ") +
                                 why + (steps.empty? ? "" : "; tried past the edge: #{steps.join(', ')}"))
          false
        end
      end
    end
  end
end
