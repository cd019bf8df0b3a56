# frozen_string_literal: true

require "fileutils"
require "tmpdir"
require_relative "program"
require_relative "result"
require_relative "siege_output"
require_relative "../error"
require_relative "../run_file"
require_relative "registry"

module Rackbench
  module Load
    # Drives siege 4 (Debian's siege 4.0.7) as the seed studies did:
    # siege -b -c N -t Ts, benchmark mode (no delay between requests).
    #
    # Method: N threads ("users"), each a closed loop (send, wait for the
    # whole response, send again), HTTP/1.1; so its latency hides
    # coordinated omission like wrk's. -j prints the final statistics as JSON
    # (SiegeOutput); siege gives no percentiles and times in 10 ms steps.
    #
    # Settings: siege reads $HOME/.siege/siege.conf (or $SIEGERC), creates it
    # from a template on first run and keeps cookies beside it. Each run gets
    # a private HOME holding the file #siegerc writes, so nothing of the
    # user's siege set-up (nor of an earlier run) leaks in; what it does not
    # set is siege's built-in default (it sends Accept-Encoding: *).
    # Pinned: keep-alive (Debian's template says close; Siege.new(keepalive:
    # false) matches it), failures (see the pitfalls below), the socket timeout, limit
    # (siege hangs silently when -c exceeds it; default 255), no logging,
    # no HTML parser, JSON output.
    #
    # Timing: -t takes whole units (S/M/H): seconds, rounded up. siege
    # 4.0.7 arms its timer at time(NULL) + T, whole wall-clock seconds
    # (src/timer.c), so a run started at x.9 s lasts T - 0.9 s (a "1S" run
    # measured 0.09 s); rackbench starts siege just after a second turns.
    # duration_s is siege's own elapsed time, so rps stays right either way.
    # threads is ignored: siege runs one thread per user.
    class Siege
      include Program
      Load.register("siege", order: 4, process: "siege") { new }
      # A new connection per request, as the JRuby post ran siege (suites/jruby.rb).
      Load.register("siege-close", order: 5, process: "siege", note: "no keep-alive") { new(keepalive: false) }

      NOT_FOUND = "siege not found on PATH: run bin/setup (or apt-get install siege)"
      VERSION_LINE = /SIEGE\s+(\d+(?:\.\d+)+)/.freeze
      DEFAULT_FAILURES = 1024 # siege's own default
      DEFAULT_LIMIT = 255
      START_AFTER_SECOND_S = 0.01
      # Pitfalls:
      # - siege -b is a closed loop: each simulated user waits for a response before sending the next,
      #   so its latency hides coordinated omission.
      # - siege ends a run once it has counted 1,024 socket failures (its default "failures" setting),
      #   exits 0 and says nothing: in the App Server Arena data this turned a winner into a "failure".
      #   Under keep-alive siege counts one per response ended by closing (no Content-Length), 1,024 in
      #   about a second, and one now and then when a server resets a kept-alive connection (12 in 13,936
      #   requests to a healthy Puma here), so a long run on a healthy server can reach the limit.
      #   rackbench reports such a run as failed, naming the count; raise the limit with the engine's
      #   failures: option.
      # - siege reports times in 10 ms steps and no percentiles: min and max below 10 ms read 0;
      #   p50-p99.9 are empty.
      # - siege 4.0.7's -t ends on a whole wall-clock second (a run can be up to 1 s short); rackbench
      #   starts it just after a second turns and divides by siege's own elapsed time.
      # - siege's data transferred is body bytes in 0.01 MB steps.

      attr_reader :failures

      def initialize(binary: "siege", keepalive: true, failures: DEFAULT_FAILURES)
        @binary = binary.to_s
        @keepalive = keepalive ? true : false
        unless failures.is_a?(Integer) && failures.positive?
          raise UsageError, "siege failures must be a whole number above 0, got #{failures.inspect}"
        end

        @failures = failures
      end

      def name
        "siege"
      end

      def command(url:, concurrency:, duration:, threads: nil, timeout: 30)
        [@binary, "-b", "-j", "--no-parser", "-c", whole(concurrency, "concurrency").to_s,
         "-t", "#{seconds(duration, 'duration')}S", url.to_s]
      end

      # The siege.conf a run uses (also worth storing beside the command).
      def siegerc(concurrency:, timeout: 30)
        <<~RC
          # Written by rackbench for one siege run; unset keys are siege's defaults.
          connection = #{@keepalive ? 'keep-alive' : 'close'}
          protocol = HTTP/1.1
          chunked = true
          cache = false
          parser = false
          benchmark = true
          delay = 0
          failures = #{@failures}
          timeout = #{seconds(timeout, 'timeout')}
          limit = #{[DEFAULT_LIMIT, whole(concurrency, 'concurrency')].max}
          json_output = true
          verbose = false
          color = off
          logging = false
          show-logfile = false
        RC
      end

      def run(url:, concurrency:, duration:, log_path:, threads: nil, timeout: 30)
        raise Error, NOT_FOUND unless available?

        argv = command(url: url, concurrency: concurrency, duration: duration, threads: threads, timeout: timeout)
        attempts = 0
        begin
          attempts += 1
          run_once(argv, concurrency, duration, timeout, log_path)
        rescue Hung
          # siege 4.0.7 now and then never exits after its timer fires
          # (seen once in about five suite runs against Puma with keep-alive,
          # and at c=128): that run is lost, not measured wrongly, so it is
          # run once more before giving up.
          retry if attempts < 2
          raise
        end
      end

      private def run_once(argv, concurrency, duration, timeout, log_path)
        Dir.mktmpdir("rackbench-siege") do |home|
          env = private_home(home, siegerc(concurrency: concurrency, timeout: timeout))
          start_after_second_turns
          deadline_s = seconds(duration, "duration") + seconds(timeout, "timeout") + GRACE_S
          # siege can ignore TERM (seen when -c exceeds limit): stopping escalates to KILL.
          output = execute(argv, deadline_s, log_path, env: env) { |text| SiegeOutput.failure_message(text) }
          SiegeOutput.parse(output, command: argv, failures: @failures)
        end
      end

      private

      def program
        "siege"
      end

      def private_home(home, text)
        rc = File.join(home, ".siege", "siege.conf")
        FileUtils.mkdir_p(File.dirname(rc))
        RunFile.replace(rc, text)
        { "HOME" => home, "SIEGERC" => rc }
      end

      # Wall clock on purpose: siege's timer counts wall-clock seconds.
      def start_after_second_turns
        sleep(1.0 - (Time.now.to_f % 1.0) + START_AFTER_SECOND_S)
      end

      # "4.0.7" (`siege --version`), run with a private HOME like a run.
      def probe_version
        Dir.mktmpdir("rackbench-siege-version") do |home|
          version_from(["--version"], VERSION_LINE, env: private_home(home, siegerc(concurrency: 1)))
        end
      end
    end
  end
end
