# frozen_string_literal: true

# A stored decision's words match its interval (issue 32, item 3): faster/
# slower (larger/smaller) iff the interval lies beyond +-margin, equivalent
# iff inside, a direction iff beyond no change but across the margin,
# undecided iff it holds no change and reaches past a bound. d: one entry of
# `report --format json`'s "decisions".
module DecisionInvariant
  BEYOND = %w[faster slower larger smaller].freeze

  def assert_words_match_interval(d)
    lo = Math.log(d["ci_low"])
    hi = Math.log(d["ci_high"])
    upper = Math.log(1 + d["margin"])
    lower = Math.log(1 - d["margin"])
    # to_h rounds the interval to 4 places: an edge that close to a bound
    # could read either way, and is not judged.
    slack = 2e-4
    return if [lo, hi].any? { |x| [upper, lower, 0.0].any? { |b| (x - b).abs < slack } }

    expected = if lo > upper || hi < lower then :beyond
               elsif lo > lower && hi < upper then :inside
               elsif lo.positive? || hi.negative? then :direction
               else :across
               end
    got = if BEYOND.include?(d["outcome"]) then :beyond
          elsif d["outcome"] == "equivalent" then :inside
          elsif d["outcome"].start_with?("direction_") then :direction
          else :across
          end
    assert_equal expected, got, "words against interval: #{d.inspect}"
    assert_operator d["ci_low"], :<=, d["ci_low_unadjusted"] + slack, "the decided interval is the wider: #{d.inspect}" if d["ci_low_unadjusted"]
  end
end
