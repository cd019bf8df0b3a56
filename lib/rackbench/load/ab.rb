# frozen_string_literal: true

require "tmpdir"
require_relative "program"
require_relative "result"
require_relative "ab_output"
require_relative "../error"
require_relative "registry"

module Rackbench
  module Load
    # Drives ab (ApacheBench 2.3, Debian's apache2-utils), the tool of the
    # seed studies, with their own flags: ab -r -c N -t T (seed 000 ran
    # `ab -r -c 40 -t 30 URL`).
    #
    # Method: one single-threaded process opens C connections; each sends a
    # request, waits for the whole response, then sends the next: a closed
    # loop, so its latency hides coordinated omission like wrk's. ab speaks
    # HTTP/1.0 and, without -k, opens a new connection for every request
    # (connection setup is inside each request's time). rackbench keeps the
    # seeds' behaviour, no -k; Ab.new(keepalive: true) adds -k.
    #
    # Flags: -r keeps going after receive errors (else the first one ends
    # the run); -t T is whole seconds (rounded up) and silently sets -n 50000,
    # ending the run at 50,000 requests however much time is left, so
    # -n REQUEST_CAP comes after -t (order matters: a -n before -t is
    # overwritten) and -t governs; -s is not a per-request timeout but a
    # stall timeout: ab aborts, without a report, only when no connection
    # at all got an answer for -s seconds, while one request that never
    # completes holds its connection, counted nowhere, until the end (seen
    # with -c 2: a run went on at concurrency 1, no error); -e writes the
    # percentile CSV, a relative name inside a private working directory so
    # the argv is the same on every run. threads is ignored: ab has one.
    class Ab
      include Program
      Load.register("ab", order: 3, process: "ab") { new }

      NOT_FOUND = "ab not found on PATH: run bin/setup (or apt-get install apache2-utils)"
      VERSION_LINE = /Version\s+(\d+(?:\.\d+)+)/.freeze
      CSV_NAME = "percentiles.csv"
      REQUEST_CAP = 10_000_000 # ab callocs 32 bytes per request up front; pages are touched only when used
      # Pitfalls:
      # - ab (ApacheBench) is a closed loop: each of its -c connections waits for a response before
      #   sending the next, so its latency hides coordinated omission.
      # - ab speaks HTTP/1.0 and opens a new connection for every request unless -k: the seed studies
      #   ran it without -k and so does rackbench (keepalive: true adds -k); connection setup is then
      #   part of every request and of the server's work.
      # - ab -t alone stops at 50,000 requests even if time remains; rackbench passes -n REQUEST_CAP
      #   after -t so the time limit governs.
      # - ab's -s timeout is not per request: a request that never completes silently holds its
      #   connection until the run ends (lowering the real concurrency, counted nowhere), and only when no
      #   connection at all got an answer for -s seconds does ab stop, without a report: the trial fails.
      # - ab counts a response whose length differs from the first one's as a "Length" failure; dynamic
      #   pages do this all the time, so rackbench does not count them as errors.
      # - ab is one single-threaded process: on a fast endpoint one core caps what it can send; check
      #   its CPU before blaming the server.

      def initialize(binary: "ab", keepalive: false)
        @binary = binary.to_s
        @keepalive = keepalive ? true : false
      end

      def name
        "ab"
      end

      # ab reads -t and -s with atoi: whole seconds, rounded up here.
      def command(url:, concurrency:, duration:, threads: nil, timeout: 30)
        [@binary, *("-k" if @keepalive), "-r", "-c", whole(concurrency, "concurrency").to_s,
         "-t", seconds(duration, "duration").to_s, "-n", REQUEST_CAP.to_s,
         "-s", seconds(timeout, "timeout").to_s, "-e", CSV_NAME, url.to_s]
      end

      def run(url:, concurrency:, duration:, log_path:, threads: nil, timeout: 30)
        raise Error, NOT_FOUND unless available?

        argv = command(url: url, concurrency: concurrency, duration: duration, threads: threads, timeout: timeout)
        timeout_s = seconds(timeout, "timeout")
        deadline_s = seconds(duration, "duration") + timeout_s + GRACE_S
        Dir.mktmpdir("rackbench-ab") do |dir|
          output = execute_in(dir, argv, deadline_s, log_path, timeout_s)
          csv_path = File.join(dir, CSV_NAME)
          AbOutput.parse(output, csv: File.exist?(csv_path) ? File.read(csv_path) : nil, command: argv)
        end
      end

      private

      def program
        "ab"
      end

      # Runs ab in dir, where -e writes (argv[0] resolved first and log_path
      # made absolute, as dir is not the caller's directory).
      def execute_in(dir, argv, deadline_s, log_path, timeout_s)
        execute([executable, *argv.drop(1)], deadline_s, File.expand_path(log_path), chdir: dir) do |output|
          AbOutput.failure_message(output, url: argv.last, timeout: timeout_s)
        end
      end

      # "2.3" (`ab -V`).
      def probe_version
        version_from(["-V"], VERSION_LINE)
      end
    end
  end
end
