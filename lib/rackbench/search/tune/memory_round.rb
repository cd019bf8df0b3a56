# frozen_string_literal: true

module Rackbench
  module Search
    class Tune
      # Round 0 of Tune: boot each server once as "SERVER x2" under a short
      # load (FOOTPRINT_PROBES closed-loop probes, which also measure the probe
      # noise on this machine), and build the space from the PSS per worker and
      # of the master it measured (Candidates). Included in Tune: it uses the
      # tune's lab, journal and entries.
      module MemoryRound
        private

        def measure_footprints
          @servers.each_with_object({}) do |server, out|
            setup = Candidates.footprint_setup(server)
            @lab.expect(FOOTPRINT_PROBES)
            o = @lab.probe(setup, repeat: FOOTPRINT_PROBES)
            if o.failure || o.records.empty?
              reason = o.failure || "the time budget ran out before it was measured"
              @journal.log("type" => "footprint", "server" => server, "setup" => setup.label, "failed" => reason)
              @say.call("memory: #{server} left out: #{reason}")
              next
            end
            out[server] = footprint_of(server, setup, o.records)
          end
        end

        def footprint_of(server, setup, records)
          @seeds[setup.label] = records
          cv = Stats::Summary.of(records.map { |r| r["goodput_rps"] || r["rps"] }).cv
          @noise << [cv, Stats::Summary.of(records.map { |r| r["requests"] }).median]
          total = Stats::Summary.of(records.map { |r| r.dig("memory", "pss_total_mb") }).median
          per = Stats::Summary.of(records.map { |r| r.dig("memory", "pss_per_worker_mb") }).median
          per = total if Candidates.one_process?(server)
          master = total && per ? [total - setup.workers * per, 0.0].max : nil
          fp = Candidates::Footprint.new(server: server, per_worker_mb: per, master_mb: master)
          @journal.log("type" => "footprint", "server" => server, "setup" => setup.label, "per_worker_mb" => per&.round(2),
                       "master_mb" => master&.round(2), "pss_total_mb" => total&.round(2), "probes" => records.map { |r| r["key"] },
                       "rps_cv" => cv&.round(4))
          fp
        end

        def build_space(footprints)
          if footprints.empty?
            raise Error, "no server could be measured (#{@servers.join(', ')}): see setups.jsonl in #{@journal.path}; " \
                         "check `rackbench servers` and --servers"
          end
          candidates, limits = Candidates.build(footprints: footprints, budget_mb: @budget_mb, cores: @cores,
                                                max_workers: @max_workers, puma_threads: @puma_threads)
          @limits = limits # Edges: how far the workers could go, and why
          limits.each { |l| @say.call("memory: #{l.note}") }
          @entries = candidates.map do |c|
            Entry.for(c).tap { |e| @seeds[e.label]&.then { |recs| e.add(recs, into: e.probes) } }
          end
          @journal.log("type" => "space", "candidates" => @entries.map(&:label), "limits" => limits.map { |l| l.to_h.transform_keys(&:to_s) },
                       "budget_mb" => @budget_mb, "cores" => @cores, "noise_band" => band.reference.round(4))
          if @entries.empty?
            raise Error, "no setup fits in the memory budget of #{Units.mib(@budget_mb)}: #{limits.map(&:note).join('; ')}; " \
                         "raise --memory-budget"
          end

          @say.call("space: #{setups(@entries.size)} (#{@entries.group_by { |e| e.setup.server }.map { |s, es| "#{s} #{es.size}" }.join(', ')}); " \
                    "probe noise band #{Racing.pct(band.reference)} (at #{@noise.map(&:last).compact.map(&:round).join('/')} responses a probe; " \
                    "wider for fewer)")
        end
      end
    end
  end
end
