# frozen_string_literal: true

require_relative "result"
require_relative "../error"

module Rackbench
  module Load
    # Reads what ab (ApacheBench 2.3) reported: the summary block of its
    # report on stdout, and the percentile CSV it wrote with -e.
    #
    # ab has no JSON output. Its summary ("Complete requests:", "Failed
    # requests:" and its "(Connect: …, Receive: …, Length: …, Exceptions: …)"
    # line, "Write errors:", "Non-2xx responses:", "Time taken for tests:",
    # "Total transferred:", "Time per request: … (mean)", the "Total:" row of
    # "Connection Times") is printed by one printf block that has kept its
    # wording since ab 2.0 (support/ab.c, output_results), so it is read line
    # by line; nothing else of the screen text is. -e writes 101 lines
    # "PERCENT,MS" (0..100, µs precision) of total request time.
    #
    # Mapping onto Result (what ab counts, from support/ab.c):
    # - requests: "Complete requests" minus "Receive" failures. Under -r ab
    #   also counts each receive failure as complete (it closes and times the
    #   connection like a finished one); a connection the server closed
    #   before answering counts as complete too and cannot be told apart.
    # - errors: connect <- Connect; read <- Receive + Exceptions (poll
    #   errors; a refused connection shows up here, not under Connect);
    #   write <- "Write errors"; status <- "Non-2xx responses"; timeout is 0:
    #   ab has no per-request timeout (see Ab on -s).
    # - "Length" failures are NOT errors: ab counts every response whose body
    #   length differs from the first one's, which any dynamic page does. They
    #   stay in ab's report in the log and in .summary, out of the Result.
    # - latency_ms: min/p50/p75/p90/p99/max from the CSV (0%, …, 100%);
    #   p99.9 is nil (ab gives whole percents); stdev is the Total row's sd.
    #   The CSV's samples include failed requests ab timed (see requests).
    # - mean: ab prints two. "Time per request … (mean)" is derived:
    #   concurrency × time taken / complete, so it counts the requests still
    #   in flight at -t's cut-off (up to concurrency × max too much: +8% in a
    #   1 s run of 74 requests). The Total row's mean is measured but in whole
    #   ms. The one with the smaller error bound is taken.
    module AbOutput
      COUNTS = {
        "complete" => /^Complete requests:\s+(\d+)\s*$/,
        "failed" => /^Failed requests:\s+(\d+)\s*$/,
        "write" => /^Write errors:\s+(\d+)\s*$/,
        "non_2xx" => /^Non-2xx responses:\s+(\d+)\s*$/,
        "keepalive" => /^Keep-Alive requests:\s+(\d+)\s*$/,
        "transferred" => /^Total transferred:\s+(\d+) bytes\s*$/,
        "concurrency" => /^Concurrency Level:\s+(\d+)\s*$/
      }.freeze
      BREAKDOWN = /^\s+\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)\s*$/.freeze
      TIME_TAKEN = /^Time taken for tests:\s+([\d.]+) seconds\s*$/.freeze
      MEAN = /^Time per request:\s+([\d.]+) \[ms\] \(mean\)\s*$/.freeze
      TOTAL_ROW = /^Total:\s+(\d+)\s+(\d+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s*$/.freeze
      CSV_LINE = /\A(\d+),(\d+(?:\.\d+)?)\z/.freeze
      PERCENTS = { "min" => 0, "p50" => 50, "p75" => 75, "p90" => 90, "p99" => 99, "max" => 100 }.freeze
      WHOLE_MS_BOUND = 0.5

      module_function

      # text: ab's stdout+stderr; csv: the -e file's text (nil when ab wrote
      # none, which it does when nothing completed); command: the argv run.
      def parse(text, csv: nil, command: nil)
        counts = summary(text)
        requests = [counts["complete"] - counts["receive"], 0].max
        Result.new(engine: "ab", requests: requests, duration_s: time_taken(text), bytes: counts["transferred"],
                   errors: errors(counts), latency_ms: latency(text, csv, counts, requests),
                   loop: "closed", command: command)
      end

      # Every count of ab's summary, "length" and "keepalive" included.
      def summary(text)
        text = text.to_s
        unless text.match?(COUNTS["complete"])
          raise Error, "ab printed no report (no \"Complete requests:\" line); see its log"
        end

        counts = COUNTS.transform_values { |re| text[re, 1].to_i }
        connect, receive, length, exceptions = (text.match(BREAKDOWN)&.captures || [0, 0, 0, 0]).map(&:to_i)
        counts.merge("connect" => connect, "receive" => receive, "length" => length, "exceptions" => exceptions)
      end

      # One line saying why ab failed, from ab's own words.
      def failure_message(text, url: nil, timeout: nil)
        lines = text.to_s.lines.map(&:strip).reject(&:empty?)
        usage_at = lines.index { |l| l.start_with?("Usage: ab") }
        if usage_at
          return "ab rejected its arguments: #{lines[usage_at - 1]&.sub(/\Aab: /, '') || 'see its usage text'}"
        end

        line = lines.reverse.find { |l| l.start_with?("apr_", "Test aborted") } || lines.last || "ab printed nothing"
        humanise(line, url, timeout)
      end

      def time_taken(text)
        value = text[TIME_TAKEN, 1]
        raise Error, "ab's report has no \"Time taken for tests\" line" unless value

        value.to_f
      end

      def errors(counts)
        { "connect" => counts["connect"], "read" => counts["receive"] + counts["exceptions"],
          "write" => counts["write"], "timeout" => 0, "status" => counts["non_2xx"] }
      end

      def latency(text, csv, counts, requests)
        figures = { "min" => nil, "mean" => nil, "stdev" => nil, "max" => nil, "p50" => nil, "p75" => nil,
                    "p90" => nil, "p99" => nil, "p99.9" => nil }
        return figures if requests.zero? || csv.nil?

        table = percentiles(csv)
        figures.merge!(PERCENTS.transform_values { |pct| table.fetch(pct) })
        row = text.match(TOTAL_ROW)
        figures.merge("mean" => mean(text, row, counts, figures["max"]), "stdev" => row && row[3].to_f)
      end

      def percentiles(csv)
        rows = csv.to_s.lines.map(&:strip).drop(1).map { |l| l.match(CSV_LINE) }
        raise Error, "ab's -e percentile file is not 101 \"PERCENT,MS\" lines" unless rows.size == 101 && rows.all?

        rows.to_h { |m| [m[1].to_i, m[2].to_f] }
      end

      # Derived mean when its bound (concurrency × max / complete) is under
      # the measured mean's rounding (0.5 ms), else the measured mean.
      def mean(text, row, counts, max)
        derived = text[MEAN, 1]&.to_f
        return row && row[2].to_f unless derived
        return derived if row.nil? || counts["concurrency"] * max / counts["complete"] < WHOLE_MS_BOUND

        row[2].to_f
      end

      def humanise(line, url, timeout)
        if line.include?("timeout specified has expired")
          return "ab gave up: no connection got an answer within its -s timeout#{timeout && " (#{timeout} s)"}, " \
                 "which ends ab's whole run without a report; is the server stalled?"
        end
        match = line.match(/\Aapr_socket_connect\(\): (.+?) \(\d+\)\z/)
        return "ab could not connect to #{url}: #{match[1]}; is the server listening?" if match

        "ab failed: #{line}"
      end

      private_class_method :time_taken, :errors, :latency, :percentiles, :mean, :humanise
    end
  end
end
