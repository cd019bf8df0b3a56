# frozen_string_literal: true

require_relative "error"

module Rackbench
  # The one parser of the sizes, durations, percentages and lists options
  # take, used where they enter (CLI::Options, Stats::Slo).
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

    def mib(value)
      format(value >= 100 ? "%.0f MiB" : "%.1f MiB", value)
    end
  end
end
