# frozen_string_literal: true

module Rackbench
  module Report
    # What a run could not measure, from setups.jsonl and trials.jsonl:
    #
    # - setups whose latest attempt failed (a resumed run may have retried
    #   one): a boot, every endpoint's verification, a crash;
    # - endpoints that failed verification on a setup that ran its others
    #   (rows with "endpoint", status "failed"), and those skipped on the
    #   other setups for the same answer (status "skipped"), unless a later
    #   attempt measured them.
    #
    # Any of the first two makes `rackbench run` exit 1.
    class Failures
      def initialize(setup_rows, trials)
        rows = setup_rows.reject { |s| s["front"] }
        measured = trials.to_h { |t| [[t["setup"], t["endpoint"], t["repetition"]], true] }
        @setups = rows.reject { |s| s["endpoint"] }.group_by { |s| [s["setup"], s["repetition"]] }
                      .map { |_, attempts| attempts.last }.select { |s| s["status"] == "failed" }
        by_endpoint = rows.select { |s| s["endpoint"] && !measured[[s["setup"], s["endpoint"], s["repetition"]]] }
        @endpoints = by_endpoint.select { |s| s["status"] == "failed" }
        @skipped = by_endpoint.select { |s| s["status"] == "skipped" }
      end

      attr_reader :setups, :endpoints, :skipped

      def any?
        @setups.any? || @endpoints.any?
      end

      # One line per failure, then one per endpoint skipped on other setups.
      def lines
        @setups.map { |f| "FAILED #{f['setup']} (repetition #{f['repetition']}): #{f['reason']}" } +
          @endpoints.map { |f| "FAILED #{f['endpoint']} on #{f['setup']} (repetition #{f['repetition']}): #{f['reason']}" } +
          @skipped.group_by { |f| f["endpoint"] }.map do |endpoint, rows|
            "SKIPPED #{endpoint} on #{rows.map { |r| r['setup'] }.uniq.join(', ')}: #{rows.first['reason']}"
          end
      end
    end
  end
end
