# frozen_string_literal: true

require "json"
require_relative "../result"
require_relative "../histogram_merge"
require_relative "../../error"

module Rackbench
  module Load
    module Remote
      # Adds up the Load::Results of the load hosts of one trial into one
      # Result (the merged figures) with each host's part in #hosts.
      #
      # Method:
      # - requests, bytes and errors (per kind) add up;
      # - latency (and open loop's service time) from the sum of the hosts'
      #   histograms (HistogramMerge): never an average of percentiles;
      # - duration_s: closed loop, the longest host's run (the hosts run in
      #   parallel, started together; the union of their runs is longer by
      #   their start skew, a few ms over SSH, and the hosts' wall clocks
      #   disagree by more than that, so they are not used); open loop, the
      #   scheduled window, the same on every host. rps = all answers over it;
      # - open loop: target and achieved rates, planned, unsent, in flight add
      #   up; schedule slip pooled (mean weighted by sends, max of maxes);
      # - valid only when every host is: a host that failed, fell behind its
      #   share (OpenLoopValidity) or ran its client above CLIENT_CPU_LIMIT of
      #   its cores makes the trial invalid, with the host named.
      module Merge
        CLIENT_CPU_LIMIT = 0.75
        HISTOGRAM = "RACKBENCH_HISTOGRAM"

        # Part = one host's share and outcome.
        # log: the host's wrk output (copied into the trial's log).
        Part = Struct.new(:host, :share, :level, :result, :histogram, :cpu, :cores, :error, :log, keyword_init: true)

        module_function

        # {"latency" => {index => count}, "service" => ...} from a host's wrk output.
        def histogram(text)
          line = text.to_s.scan(/^#{HISTOGRAM} (.*)$/).flatten.last
          raise Error, "wrk printed no #{HISTOGRAM} line" unless line

          json = JSON.parse(line)
          raise Error, "wrk's #{HISTOGRAM} line is not in nanoseconds" unless json["unit"] == "ns"

          json.slice("latency", "service").transform_values { |c| c.to_h { |i, n| [Integer(i), Integer(n)] } }
        rescue JSON::ParserError, ArgumentError, TypeError
          raise Error, "wrk's #{HISTOGRAM} line is garbled: #{line.to_s[0, 80]}"
        end

        def call(parts, loop:, duration: nil)
          ok = parts.reject(&:error)
          raise Error, parts.map { |p| "load host #{p.host.label}: #{p.error}" }.join("; ") if ok.empty?

          results = ok.map(&:result)
          merged = Result.new(engine: results.first.engine, loop: loop, requests: results.sum(&:requests),
                              bytes: results.sum(&:bytes), errors: errors(results),
                              duration_s: loop == "open" ? duration.to_f : results.map(&:duration_s).max,
                              latency_ms: latency(ok, "latency", :latency_ms, keys(loop)),
                              command: parts.map { |p| "#{p.host.label}: #{Array(p.result&.command).join(' ')}" })
          open_loop(merged, ok, duration) if loop == "open"
          judge(merged, parts)
          merged.hosts = parts.map { |p| part_record(p) }
          merged
        end

        def errors(results)
          Result::ERROR_KINDS.to_h { |k| [k, results.sum { |r| r.errors[k].to_i }] }
        end

        def latency(parts, key, field, keys = HistogramMerge::PERCENTILES.keys)
          HistogramMerge.latency_ms(parts.map { |p| { counts: p.histogram.fetch(key, {}), latency_ms: p.result[field] || {} } },
                                           keys: keys)
        end

        # The percentiles each loop reports on one host (wrk's, or open_loop.lua's).
        def keys(loop)
          loop == "open" ? HistogramMerge::PERCENTILES.keys : HistogramMerge::PERCENTILES.keys - ["p99.99"]
        end

        def open_loop(merged, parts, duration)
          results = parts.map(&:result)
          merged.service_ms = latency(parts, "service", :service_ms)
          merged.target_rate = results.sum(&:target_rate)
          merged.achieved_rate = merged.requests / duration.to_f
          %i[connections planned in_flight unsent].each { |k| merged[k] = results.sum { |r| r[k].to_i } }
          merged.unanswered_ms = results.all?(&:unanswered_ms) ? results.flat_map(&:unanswered_ms) : nil
          merged.schedule_slip_ms = slip(results.map(&:schedule_slip_ms))
          merged.valid = true
        end

        def slip(slips)
          sends = slips.sum { |s| s["sends"].to_i }
          mean = sends.positive? ? slips.sum { |s| s["mean"].to_f * s["sends"].to_i } / sends : 0.0
          { "mean" => mean.round(3), "max" => slips.map { |s| s["max"].to_f }.max,
            **%w[sends late early queued].to_h { |k| [k, slips.sum { |s| s[k].to_i }] } }
        end

        # Sets valid/invalid_reason: every problem of every host, named.
        def judge(merged, parts)
          reasons = parts.flat_map { |p| problems(p).map { |r| "load host #{p.host.label}: #{r}" } }
          return if reasons.empty?

          merged.valid = false
          merged.invalid_reason = reasons.join("; ")
        end

        def problems(part)
          return ["failed (#{part.error})"] if part.error

          list = []
          list << part.result.invalid_reason unless part.result.valid?
          share = host_cpu_share(part)
          if share && share > CLIENT_CPU_LIMIT
            list << "its wrk used #{(share * 100).round}% of its #{part.cores} cores, above " \
                    "#{(CLIENT_CPU_LIMIT * 100).round}%: the client may have limited the load (add a load host)"
          end
          list
        end

        def host_cpu_share(part)
          cpu = part.cpu or return nil
          return nil unless cpu["wall_s"].positive? && part.cores.to_i.positive?

          cpu["cpu_s"] / cpu["wall_s"] / part.cores
        end

        def part_record(part)
          r = part.result
          record = { "host" => part.host.label, "share" => part.share.round(6), "cores" => part.cores,
                     part.level.keys.first => part.level.values.first }
          return record.merge("error" => part.error) if part.error

          share = host_cpu_share(part)
          record.merge("requests" => r.requests, "duration_s" => r.duration_s.round(6), "rps" => r.rps.round(2),
                       "errors" => r.errors, "latency_ms" => r.latency_ms.transform_values { |v| v&.round(3) },
                       "achieved_rate" => r.achieved_rate&.round(2), "schedule_slip_ms" => r.schedule_slip_ms,
                       "client_cpu" => part.cpu && part.cpu.merge("host_share" => share&.round(4)),
                       "valid" => problems(part).empty?, "command" => r.command)
        end
      end
    end
  end
end
