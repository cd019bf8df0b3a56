# frozen_string_literal: true

require "uri"
require_relative "error"
require_relative "redact"

module Rackbench
  # The one parser of the values options take: sizes, durations,
  # percentages, numbers, whole numbers, lists, paths, statuses, URLs and
  # words, used where they enter (every flag's declaration in CLI::Options,
  # Config's settings in Config::Values, Stats::Slo). Each takes the flag it
  # names in its message; the limits are the caller's.
  #
  # Memory is in binary units whatever the spelling: "2G", "2GB" and
  # "2GiB" all mean 2 x 2^30 bytes ("1500M" = 1500 MiB), because that is
  # how memory is sold and how /proc reports it. Results are in MiB.
  # Durations take ms, s, m (min) or h; a bare number is in the unit the
  # caller names (seconds for a time budget, milliseconds for a p99).
  module Units
    MEMORY = /\A(\d+(?:\.\d+)?)\s*(k|m|g|t)(?:i?b)?\z/i.freeze
    MIB_PER = { "k" => 1.0 / 1024, "m" => 1.0, "g" => 1024.0, "t" => 1024.0 * 1024 }.freeze
    MEMORY_FORMS = "2GiB, 512MiB, 2G or 1500M (binary units: G = GiB = 2^30 bytes)"

    DURATION = /\A(\d+(?:\.\d+)?)\s*(ms|s|m|min|h)?\z/.freeze
    SECONDS_PER = { "ms" => 0.001, "s" => 1, "m" => 60, "min" => 60, "h" => 3600 }.freeze

    # Decimal numbers only, as a person writes them ("2", "0.5", "1.5e1"):
    # Float() alone also reads "0x10" as 16 and "1_0" as 10.
    DECIMAL = /\A\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*\z/.freeze
    # No trial, warm-up, pause or timeout longer than a day: a typo (-d 1e9,
    # a 31-year trial) is refused before anything boots.
    MAX_SECONDS = 86_400

    module_function

    # "2GiB" -> 2048.0 (MiB)
    def mebibytes(text, flag: "--memory-budget")
      m = text.to_s.strip.match(MEMORY)
      mib = m && m[1].to_f * MIB_PER.fetch(m[2].downcase)
      return mib if mib&.positive?

      raise UsageError, "#{flag} #{text.inspect}: write #{MEMORY_FORMS}"
    end

    # "20m" -> 1200.0, "90s" -> 90.0, "600" -> 600.0 (seconds)
    def seconds(text, flag: "--time-budget", min: 1)
      s = duration(text, bare: "s")
      return s if s && s >= min

      raise UsageError, "#{flag} #{text.inspect}: write a duration of at least #{min} s such as 10m, 90s or 1h"
    end

    # "300ms" -> 300.0, "0.5s" -> 500.0, "500" -> 500.0 (milliseconds)
    def millis(text, flag: "--slo-p99")
      s = duration(text, bare: "ms")
      raise UsageError, "#{flag} #{text.inspect}: write 500ms, 0.5s or 500" unless s&.positive?

      s * 1000
    end

    # Seconds, or nil when text is not a duration.
    def duration(text, bare:)
      m = text.to_s.strip.match(DURATION) or return nil
      m[1].to_f * SECONDS_PER.fetch(m[2] || bare)
    end

    # "0.1" or "0.1%" -> 0.1 (percent)
    def percent(text, flag: "--max-errors")
      value = Float(text.to_s.delete_suffix("%"), exception: false)
      raise UsageError, "#{flag} #{text.inspect}: write a percentage such as 0.1" unless value&.between?(0, 100)

      value
    end

    # "1,3,5" -> [1, 3, 5]
    def counts(text, flag:, max: 1024)
      values = text.to_s.split(",").map { |v| Integer(v.strip, 10, exception: false) }
      return values.uniq.sort if values.any? && values.all? { |v| v&.between?(1, max) }

      raise UsageError, "#{flag} #{text.inspect}: write whole numbers from 1 to #{max} separated by commas, e.g. 1,3,5"
    end

    # A decimal number from min up (seconds unless unit says otherwise).
    #   above   a timeout's least (a shorter one fails every `fails`)
    #   capped  at most MAX_SECONDS (false for a rate or a share)
    #   word    another accepted value, named in the message ("steady")
    def number(value, flag:, min: 0, above: nil, capped: true, unit: "seconds", word: nil, fails: "request")
      n = Float(value, exception: false) if value.is_a?(Numeric) || (value.is_a?(String) && value.match?(DECIMAL))
      if n&.finite? && n >= min && !(above && n < above)
        return n if !capped || n <= MAX_SECONDS

        raise UsageError, "#{flag} #{value.inspect} is over a day (#{MAX_SECONDS} s), the most rackbench takes; " \
                          "give seconds, e.g. #{flag} 30"
      end
      if above
        raise UsageError, "#{flag} must be a number of seconds above 0, at least #{format('%g', above)} (got " \
                          "#{value.inspect}): a shorter timeout fails every #{fails}"
      end

      raise UsageError, "#{flag} must be a number of #{unit} >= #{min}#{" or #{word.inspect}" if word} (got #{value.inspect})"
    end

    # A whole number from 1 (to max), typed or given.
    def count(value, flag:, max: nil)
      n = Integer(value, 10, exception: false) if value.is_a?(String)
      n = value if value.is_a?(Integer)
      return n if n && n >= 1 && (max.nil? || n <= max)

      raise UsageError, "#{flag} must be a whole number from 1#{max ? " to #{max}" : ''} (got #{value.inspect})"
    end

    # An Integer, or nil when value is not a whole number written in decimal.
    def whole(value)
      value.is_a?(Integer) ? value : Integer(value.to_s, 10, exception: false)
    end

    # The equivalence margin as a share (0.05), from a share or a
    # percentage as typed (--margin 5 or 5%: percent's reading, then / 100).
    def margin(value)
      share = value.is_a?(Numeric) ? value.to_f : nil
      return share if share&.positive? && share < 1

      shown = value.is_a?(Numeric) ? "#{format('%g', value * 100)}%" : value.inspect
      raise UsageError, "--margin must be a percentage above 0 and below 100, e.g. 5 for +-5% (got #{shown})"
    end

    # --margin 5 -> 0.05
    def margin_percent(text)
      margin(percent(text, flag: "--margin") / 100.0)
    end

    # compare --fail-if-slower 5 -> 5.0: a percentage from 0 up to, not
    # including, 100 (0: the --margin).
    def gate_percent(text)
      value = Float(text.to_s.delete_suffix("%"))
      raise ArgumentError if value.negative? || value >= 100 || !value.finite?

      value
    rescue ArgumentError
      raise UsageError, "--fail-if-slower takes a percentage from 0 up to (not including) 100, like 5 or 2.5 " \
                        "(0: the --margin); got #{text.inspect}"
    end

    # --expect-status 301 or 301,302: statuses wrk counts as answers (it
    # counts 400 and above as errors, so those cannot be expected).
    def statuses(value)
      codes = Array(value).flatten.flat_map { |v| v.to_s.split(",") }.map(&:strip)
      parsed = codes.map { |c| Integer(c, 10, exception: false) }
      return parsed if parsed.any? && parsed.all? { |c| c&.between?(200, 399) }

      raise UsageError, "--expect-status must be HTTP statuses from 200 to 399, e.g. 301 or 301,302 (got #{value.inspect}); " \
                        "wrk counts 400 and above as errors"
    end

    # A request path as loaded: "/posts?page=2" (no spaces or controls).
    def endpoint(value)
      path = value.to_s.strip
      bad = path.index(/[[:space:][:cntrl:]]/)
      if bad
        encoded = path.gsub(/[[:space:][:cntrl:]]/) { |c| format("%%%02X", c.ord) }
        raise UsageError, "endpoint #{value.inspect} holds #{path[bad].inspect} at position #{bad + 1}: write it " \
                          "percent-encoded (#{format('%%%02X', path[bad].ord)}), e.g. --endpoint #{encoded}"
      end
      return path if path.start_with?("/")

      raise UsageError, "endpoint #{value.inspect} must be a path starting with /, e.g. --endpoint /hello"
    end

    # One of the accepted words, in any case: "ON" -> "on".
    def choice(value, accepted, flag:)
      word = value.to_s.downcase
      return word if accepted.include?(word)

      raise UsageError, "#{flag} must be #{accepted.join(' or ')} (got #{word.inspect})"
    end

    # --url as users write it -> [base, path-and-query or nil]:
    # "http://h:3000/posts?page=2" -> ["http://h:3000", "/posts?page=2"].
    def url(text)
      uri = URI.parse(text.to_s.strip)
      raise URI::InvalidURIError unless uri.is_a?(URI::HTTP) && !uri.host.to_s.empty? && uri.fragment.nil?

      target = uri.request_uri
      ["#{uri.scheme}://#{uri.host}:#{uri.port}", target == "/" ? nil : target]
    rescue URI::InvalidURIError
      raise UsageError, "--url #{Redact.text(text).inspect} must be an http:// URL like http://127.0.0.1:3000/ " \
                        "or http://127.0.0.1:3000/posts?page=2"
    end

    def mib(value)
      format(value >= 100 ? "%.0f MiB" : "%.1f MiB", value)
    end
  end
end
