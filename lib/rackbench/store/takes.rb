# frozen_string_literal: true

module Rackbench
  module Store
    # A boot is the unit a decision samples (issue 22: the variance is per
    # boot), so a run measured with --per-boot K (takes 1..K of each cell
    # back to back on one boot) reports one record per boot: the mean take.
    #
    # Method: the takes of one cell and round (same endpoint, setup, level,
    # repetition) become one record: numbers are the takes' arithmetic mean
    # (an Integer field's mean rounded), nested figures likewise key by key,
    # warnings, notes and stopped pids their union (other lists: the first
    # take's), true/false flags true only when every take's is; anything
    # else is the first take's. The record
    # keeps the first take's key and says "takes" (how many) and "take_rps"
    # (each take's req/s: Stats::BootVariance splits the variance from
    # them). Records without "take" pass through unchanged, in order.
    # Given a block, each boot's record goes through it as it is made (a
    # report packs it: Store::PackedTrials, never holding every boot's Hash).
    # A record may also be a Store::PackedRef (read as its Hash).
    # Limits: a mean of percentiles is not the percentile of the pooled
    # requests (each take's p99 is a figure of that take; their mean is the
    # boot's typical p99).
    module Takes
      module_function

      def boots(records, &made)
        return records unless records.any? { |r| r.key?("take") }

        groups = {}
        out = []
        records.each do |r|
          next out << r unless r.key?("take")

          id = [r["endpoint"], r["setup"], r["rate"] || r["concurrency"], r["repetition"]]
          unless groups.key?(id)
            groups[id] = []
            out << id
          end
          groups[id] << r
        end
        made ||= :itself.to_proc
        out.map { |item| item.is_a?(Array) ? made.call(boot(groups.delete(item))) : item }
      end

      def boot(takes)
        takes = takes.map(&:to_h).sort_by { |t| t["take"].to_i }
        merged = merge(takes)
        merged.delete("take")
        merged.merge("takes" => takes.size, "take_rps" => takes.map { |t| t["rps"] })
      end

      # Lists joined across takes (what happened in any take); every other
      # list (a command line, the load hosts' parts) is the first take's.
      JOINED = %w[warnings notes stopped_pids].freeze

      def merge(values, key = nil)
        first = values.first
        case first
        when Hash
          return first unless values.all?(Hash)

          first.keys.to_h { |k| [k, values.all? { |v| v.key?(k) } ? merge(values.map { |v| v[k] }, k) : first[k]] }
        when Numeric
          return first unless values.all?(Numeric)

          mean = values.sum.fdiv(values.size)
          values.all?(Integer) ? mean.round : mean
        when Array
          JOINED.include?(key) && values.all?(Array) ? values.flatten(1).uniq : first
        when true, false
          values.all?(true)
        else
          first
        end
      end
    end
  end
end
