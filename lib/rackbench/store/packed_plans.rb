# frozen_string_literal: true

module Rackbench
  module Store
    # How Store::PackedRecords codes the values that repeat. A value that
    # takes few values from record to record (a setup's name, a flag, a
    # count of errors that stays 0, an empty list of warnings, a small
    # count: some 90 of the 134 of bench/huge_report.rb's trials, whose
    # figures vary as a real run's) is coded: once SAMPLE records of a
    # shape are in, each value index at which they hold at most
    # 2**PLAN_BITS distinct values (the very same objects: Integers,
    # Floats, nil, true, false, deduplicated strings) is a plan's, and a
    # record whose values there are all in the plan's tables is kept as its
    # other values and those codes, a few bits each, packed in Integers. A
    # record a plan does not take is kept as it is, and learnt from: up to
    # MAX_PLANS plans a shape, the last one used tried first.
    module PackedPlans
      PLAN_BITS = 4 # a value coded takes at most 16 values
      MAX_PLANS = 8 # a shape's tries at a plan
      MIN_CODED = 8 # values a plan must code to be made
      WORD_BITS = 60 # codes packed in an Integer (a Fixnum)

      # A signature's shapes: its records as they are (plain: its id) and
      # its plans (the last used first), the values of the records no plan
      # took since the last try (samples; nil: no more tries), and the
      # values met at each value index in all samples so far (seen: value
      # => true, or :many past 2**PLAN_BITS of them).
      Kind = Struct.new(:signature, :plain, :plans, :samples, :tries, :seen)
      # A plan's shape id and its encoder: ->(values, out) { out, the
      # values kept and the codes, or nil when some value is not in its tables }.
      Plan = Struct.new(:id, :encode)

      private

      # The Kind of @signature: the last record's (no hash of some 140
      # keys), a known one or a new one; nil past MAX_SHAPES.
      def kind_of_record
        found = @last if @last&.signature == @signature
        found ||= @kinds[@signature]
        if found.nil? && @roots.size < PackedRecords::MAX_SHAPES
          signature = @signature.dup.freeze
          found = @kinds[signature] = Kind.new(signature, compile(signature), [], [], 0, nil)
        end
        @last = found
      end

      # The handle of the record in @values, kept as the first of kind's
      # plans that takes it, else as it is (and learnt from).
      def stored(kind)
        plans = kind.plans
        plans.each_with_index do |plan, i|
          coded = plan.encode.call(@values, @coded) or next
          plans.unshift(plans.delete_at(i)) unless i.zero?
          return put(plan.id, coded)
        end
        handle = put(kind.plain, @values)
        learn(kind)
        handle
      end

      # Keeps the values no plan took; SAMPLE of them make a plan, when
      # MIN_CODED of their values take few values.
      def learn(kind)
        samples = kind.samples or return
        samples << @values.dup
        return if samples.size < PackedRecords::SAMPLE

        plan = plan(kind, samples) if @roots.size < PackedRecords::MAX_SHAPES # a plan is a shape too
        kind.plans.unshift(plan) if plan
        kind.tries += 1
        kind.samples = kind.tries < MAX_PLANS && @roots.size < PackedRecords::MAX_SHAPES ? [] : nil
      end

      # The Plan of kind's samples (Arrays of values of its signature) and
      # of every sample before, or nil. A value index that took more values
      # than the last plan knew is kept, not coded: it is still growing (a
      # run's rounds: 1, then 2, then 3), and coding each new value would
      # cost a try. Each value index is coded (code => value in tables,
      # value => code in codes) or kept (its index among those kept); the
      # codes follow the values kept, packed in Integers of WORD_BITS.
      def plan(kind, samples)
        first = kind.seen.nil?
        seen = (kind.seen ||= Array.new(samples.first.size) { {}.compare_by_identity })
        seen.each_with_index do |found, j|
          next if found == :many

          known = found.size
          samples.each { |values| found[values[j]] = true }
          seen[j] = :many if found.size > 1 << PLAN_BITS || (!first && found.size > known)
        end
        tables = seen.map { |found| found == :many ? nil : found.keys.freeze }
        return nil if tables.count(&:itself) < MIN_CODED

        kept = tables.count(&:nil?)
        layout = Array.new(tables.size)
        word = kept - 1
        shift = WORD_BITS
        at = -1
        tables.each_with_index do |table, j|
          next layout[j] = (at += 1) unless table

          bits = (table.size - 1).bit_length
          next layout[j] = [nil, 0, 0, table] if bits.zero?

          word, shift = word + 1, 0 if shift + bits > WORD_BITS
          layout[j] = [word, shift, (1 << bits) - 1, table]
          shift += bits
        end
        Plan.new(compile(kind.signature, layout), encoder(layout))
      end

      # ->(values, out) of a plan's layout (#plan): out cleared, then the
      # values kept and the Integers of codes; nil when a value coded is
      # not in its table. Its source holds Integers and punctuation only.
      def encoder(layout)
        codes = layout.map { |at| at.is_a?(Array) ? at[3].each_with_index.with_object({}.compare_by_identity) { |(v, i), h| h[v] = i } : nil }
        checks = []
        words = Hash.new { |h, w| h[w] = [] }
        kept = []
        layout.each_with_index do |at, j|
          next kept << "v[#{j}]" unless at.is_a?(Array)

          checks << "(c#{j} = e[#{j}][v[#{j}]])"
          words[at[0]] << "(c#{j} << #{at[1]})" if at[0]
        end
        out = kept + words.sort.map { |_, parts| "(#{parts.join(' | ')})" }
        eval("->(e) { ->(v, out) { #{checks.join(' && ')} or return nil; out.clear; out.push(#{out.join(', ')}) } }", # rubocop:disable Security/Eval
             TOPLEVEL_BINDING, __FILE__, __LINE__).call(codes)
      end
    end
  end
end
