# frozen_string_literal: true

require_relative "decision"

module Rackbench
  module Stats
    # Which equivalence margin a decision uses, decided here only: the one
    # given on the command line (--margin), else the run's own (meta.json's
    # config.margin, a share in (0, 1)), else Decision::DEFAULT_MARGIN.
    # report, compare, the table and the report datasets all ask this.
    module Margin
      # [share, source]: source is :given, :stored or :default.
      def self.choose(given, meta)
        return [given.to_f, :given] if given

        stored = meta.is_a?(Hash) ? meta.dig("config", "margin") : nil
        return [stored.to_f, :stored] if stored.is_a?(Numeric) && stored.positive? && stored < 1

        [Decision::DEFAULT_MARGIN, :default]
      end

      # The share alone.
      def self.of(given, meta)
        choose(given, meta).first
      end
    end
  end
end
