# frozen_string_literal: true

require_relative "../../error"
require_relative "../../units"
require_relative "../../stats/summary"
require_relative "candidates"
require_relative "entry"
require_relative "noise"
require_relative "racing"
require_relative "prediction"

module Rackbench
  module Search
    class Tune
      # Round 0 of Tune: boot each server once as its footprint setup
      # ("SERVER x2", Puma "x2:1") under a short load (probes closed-loop
      # probes, which also measure the probe noise on this machine), and build
      # the space from the PSS per worker and of the master it measured
      # (Candidates). Takes the shared State; returns the space: the
      # candidates as entries (a footprint setup that is also a candidate
      # keeps its probes as its round-1 evidence), each server's limit, and
      # the noise band (Noise) rounds 1 and 2 judge by.
      class MemoryRound
        Result = Struct.new(:entries, :limits, :band, :prediction, keyword_init: true)

        # ladders: {server => thread counts} replacing a server's own ladder (--puma-threads).
        def initialize(state, servers:, budget_mb:, cores:, max_workers:, ladders:, probes:)
          @s = state
          @servers = servers
          @budget_mb = budget_mb
          @cores = cores
          @max_workers = max_workers
          @ladders = ladders
          @probes = probes
          @seeds = {}
          @records = {} # server => its footprint probes' records (their split: Prediction)
          @noise = [] # [[cv, responses per probe]] of each footprint probe series
        end

        def call
          footprints = measure
          band = Noise.new(@noise)
          entries, limits = build(footprints, band)
          prediction = Prediction.from(records: @records, limits: limits, cores: @cores, ladders: @ladders)
          Result.new(entries: entries, limits: limits, band: band, prediction: prediction)
        end

        private

        def measure
          @servers.each_with_object({}) do |server, out|
            setup = Candidates.footprint_setup(server)
            @s.lab.expect(@probes)
            o = @s.lab.probe(setup, repeat: @probes)
            if o.failure || o.records.empty?
              reason = o.failure || "the time budget ran out before it was measured"
              @s.journal.log("type" => "footprint", "server" => server, "setup" => setup.label, "failed" => reason)
              @s.say.call("memory: #{server} left out: #{reason}")
              next
            end
            out[server] = footprint_of(server, setup, o.records)
          end
        end

        def footprint_of(server, setup, records)
          @seeds[setup.label] = records
          @records[server] = records
          cv = Stats::Summary.of(records.map { |r| r["goodput_rps"] || r["rps"] }).cv
          @noise << [cv, Stats::Summary.of(records.map { |r| r["requests"] }).median]
          total = Stats::Summary.of(records.map { |r| r.dig("memory", "pss_total_mb") }).median
          per = Stats::Summary.of(records.map { |r| r.dig("memory", "pss_per_worker_mb") }).median
          per = total if Candidates.only_one_process?(server)
          master = total && per ? [total - setup.workers * per, 0.0].max : nil
          @s.journal.log("type" => "footprint", "server" => server, "setup" => setup.label, "per_worker_mb" => per&.round(2),
                         "master_mb" => master&.round(2), "pss_total_mb" => total&.round(2), "probes" => records.map { |r| r["key"] },
                         "rps_cv" => cv&.round(4))
          Candidates::Footprint.new(server: server, per_worker_mb: per, master_mb: master)
        end

        def build(footprints, band)
          if footprints.empty?
            raise Error, "no server could be measured (#{@servers.join(', ')}): see setups.jsonl in #{@s.journal.path}; " \
                         "check `rackbench servers` and --servers"
          end
          candidates, limits = Candidates.build(footprints: footprints, budget_mb: @budget_mb, cores: @cores,
                                                max_workers: @max_workers, ladders: @ladders)
          limits.each { |l| @s.say.call("memory: #{l.note}") }
          entries = candidates.map do |c|
            Entry.for(c).tap { |e| @seeds[e.label]&.then { |recs| e.add(recs, into: e.probes) } }
          end
          @s.journal.log("type" => "space", "candidates" => entries.map(&:label), "limits" => limits.map { |l| l.to_h.transform_keys(&:to_s) },
                         "budget_mb" => @budget_mb, "cores" => @cores, "noise_band" => band.reference.round(4))
          if entries.empty?
            raise Error, "no setup fits in the memory budget of #{Units.mib(@budget_mb)}: #{limits.map(&:note).join('; ')}; " \
                         "raise --memory-budget"
          end

          say_space(entries, band)
          [entries, limits]
        end

        def say_space(entries, band)
          per_server = entries.group_by { |e| e.setup.server }.map { |s, es| "#{s} #{es.size}" }.join(", ")
          @s.say.call("space: #{entries.size} setup#{entries.size == 1 ? '' : 's'} (#{per_server}); " \
                      "probe noise band #{Racing.pct(band.reference)} (at #{@noise.map(&:last).compact.map(&:round).join('/')} " \
                      "responses a probe; wider for fewer)")
        end
      end
    end
  end
end
