# frozen_string_literal: true

module Rackbench
  module Stats
    # The gate of --fail-if-slower P, one for both of its commands: did B
    # get slower than A by more than P? `compare RUN_A RUN_B` (Stats::Compare:
    # a run against another, unpaired) and `run --ref BASE --ref HEAD`
    # (Stats::RefGate: each later ref against the first, paired by round)
    # build the req/s decisions of B/A at the margin P, the gate's cells one
    # family; this sorts each cell by one rule:
    #
    #   slower     its interval of B/A lies wholly below 1 - P (the decision
    #              at margin P is :lower);
    #   undecided  it reaches below 1 - P, or the cell has no decision
    #              (fewer than 2 values of both): more would tell;
    #   missing    A has the cell and B has not (a ref or setup failed, a
    #              run was cut short): the gate fails closed;
    #   passed     its interval lies above 1 - P (equivalent, faster, or
    #              reaching above 1 + P: not slower by more than P).
    #
    # The gate's verdict is the worst of its cells' (missing, slower,
    # undecided, passed) and its exit status EXIT's; Stats::GateText says it.
    class Gate
      EXIT = { passed: 0, slower: 1, missing: 1, undecided: 3 }.freeze
      VERDICTS = %i[missing slower undecided passed].freeze

      # One cell of the gate: a and b the labels compared (B against A; the
      # same label when one setup met itself in two runs), entry its req/s
      # Decisions::Entry (nil: no decision, or missing).
      Cell = Struct.new(:endpoint, :level, :loop, :a, :b, :entry, keyword_init: true) do
        def decision = entry&.decision
      end

      # percent: --fail-if-slower's value; 0 gates at the comparison's margin.
      def self.share(percent, margin)
        percent.positive? ? percent / 100.0 : margin
      end

      # The rule, for one decision of B/A made at margin share.
      def self.verdict(decision, share)
        return :undecided if decision.nil?
        raise ArgumentError, "a gate at #{share} reads a decision at #{decision.margin}" unless decision.margin == share
        return :slower if decision.outcome == :lower
        return :undecided if decision.ci_low < 1 - share

        :passed
      end

      attr_reader :share

      # cells: Cells with their entry (or none); missing: Cells of A that B lacks.
      def initialize(share, cells:, missing: [])
        @share = share
        @found = VERDICTS.to_h { |v| [v, []] }
        @found[:missing].concat(missing)
        cells.each { |cell| @found[self.class.verdict(cell.decision, share)] << cell }
      end

      def slower = @found[:slower]
      def undecided = @found[:undecided]
      def missing = @found[:missing]
      def passed = @found[:passed]

      # The undecided cells with no decision at all (fewer than 2 of both).
      def too_few = undecided.reject(&:entry)

      def cells = VERDICTS.flat_map { |v| @found[v] }

      def verdict = VERDICTS.find { |v| @found[v].any? } || :passed

      def status = EXIT.fetch(verdict)
    end
  end
end
