# frozen_string_literal: true

require_relative "attribution"
require_relative "decision_text"

module Rackbench
  module Stats
    # An Attribution in words, under its decided pair (the terminal,
    # Markdown and HTML answers read these):
    #
    #   HEAD@699dd0d slower by 9% (95% CI 5.6-12%): +0.41 ms per request in Fibonacci.fib (fibonacci.rb)
    #   (+0.30 to +0.52); nothing else changed beyond noise
    #   profiled CPU +0.45 ms per request (95% CI +0.38 to +0.52), of which named +0.41, unexplained +0.04;
    #   the req/s interval implies +0.30 to +0.55 ms were CPU the limit: consistent
    #
    # The decision's words are DecisionText's (its interval, the one decided
    # on); each frame's interval is its FCR-adjusted one (Attribution).
    module AttributionText
      SHOWN = 3
      COUNTER_WORDS = { "alloc" => ["objects allocated", 0], "gc_count" => ["GC runs", 3],
                        "gc_time_ms" => ["ms of GC", 3], "sql_count" => ["SQL queries", 2],
                        "sql_ms" => ["ms of SQL", 3] }.freeze

      module_function

      def line(attribution)
        entry = attribution.entry
        named = attribution.named
        parts = named.first(SHOWN).map { |c| frame(c) }
        parts << "#{named.size - SHOWN} more frame(s) changed (JSON: attribution)" if named.size > SHOWN
        counters = attribution.counters.select(&:decided)
        parts.concat(counters.map { |c| counter(c) })
        parts << (parts.empty? ? "no frame or counter changed beyond noise" : "nothing else changed beyond noise")
        "#{entry.b} #{DecisionText.phrase(entry, label: nil)}: #{parts.join('; ')}"
      end

      def check(attribution)
        total = attribution.total
        low, high = total.interval(0.05)
        point, i_low, i_high = attribution.implied
        "profiled CPU #{ms(total.mean)} ms per request (95% CI #{ms(low)} to #{ms(high)}; #{attribution.tested} frames tested), " \
          "of which named #{ms(attribution.named_sum)}, unexplained #{ms(attribution.unexplained)}; the req/s interval " \
          "implies #{ms(i_low)} to #{ms(i_high)} ms (#{ms(point)}) were CPU per request the limit: " \
          "#{attribution.consistent? ? 'consistent' : 'not within it (the server also waits: IO, the GVL, a queue)'}"
      end

      def frame(change)
        where = change.file.to_s.empty? ? "" : " (#{change.file})"
        "#{ms(change.change)} ms per request in #{change.name}#{where} (#{ms(change.low)} to #{ms(change.high)})"
      end

      def counter(change)
        statement = change.name.delete_prefix(FrameTimes::STATEMENT) if change.name.start_with?(FrameTimes::STATEMENT)
        words, digits = statement ? ["queries", 2] : COUNTER_WORDS.fetch(change.name)
        "#{num(change.change, digits)} #{words} per request#{" `#{statement}`" if statement} " \
          "(#{num(change.low, digits)} to #{num(change.high, digits)})"
      end

      def ms(value)
        format("%+.3g", value)
      end

      def num(value, digits)
        return format("%+.#{digits}f", value) unless digits.zero?

        sign = value.negative? ? "-" : "+"
        "#{sign}#{value.abs.round.to_s.reverse.scan(/\d{1,3}/).join(',').reverse}"
      end
    end
  end
end
