# frozen_string_literal: true

require_relative "number_format"

module Rackbench
  module Report
    # The curve of each --warmup steady warm-up, from the stored trials'
    # "warmup" field (Runner::SteadyWarmup): one line per setup, repetition
    # and endpoint, e.g.
    #   puma x1:16 on jruby /hello (r1): 2.7k → 9.1k → 16.2k → 16.5k req/s, steady after 4 windows (8 s)
    module WarmupCurve
      module_function

      # The first trial's line of each setup, round and endpoint.
      def lines(trials)
        trials.each_with_object({}) do |t, seen|
          seen[[t["setup"], t["repetition"], t["endpoint"]]] ||= line(t) if t["warmup"].is_a?(Hash)
        end.values
      end

      def line(trial)
        w = trial["warmup"]
        rps = w["metric"] == "rps"
        values = w["windows"].map { |v| rps ? NumberFormat.rps(v) : NumberFormat.ms(v) }
        unit = rps ? "req/s" : "mean latency"
        verdict = w["steady"] ? "steady after #{w['windows'].size} windows" : "NOT steady after #{w['windows'].size} windows (cap)"
        "#{trial['setup']} #{trial['endpoint']} (r#{trial['repetition']}): #{values.join(' → ')} #{unit}, #{verdict} (#{w['seconds']} s)"
      end

      def render(trials, io:)
        found = lines(trials)
        return if found.empty?

        io.puts
        io.puts "Warm-up (--warmup steady: windows until two consecutive ones agree):"
        found.each { |l| io.puts "  #{l}" }
      end

      def markdown(trials, escape:)
        found = lines(trials)
        return "" if found.empty?

        "\n**Warm-up** (windows until two consecutive ones agree)\n\n" + found.map { |l| "- #{escape.call(l)}\n" }.join
      end
    end
  end
end
