# frozen_string_literal: true

require_relative "../clock"
require_relative "../periodic"
require_relative "../system/sock_diag"
require_relative "../system/sockets"

module Rackbench
  module Sampling
    # Requests a closed-loop load generator still waits for when it stops.
    # wrk counts a timeout only when a late answer finally arrives, so a
    # request the server never finishes (it hangs, or sends part of an answer
    # and stops) is counted nowhere: a trial where every connection hung
    # after a few answers shows few requests and no errors.
    #
    # Method: every `interval` (0.2 s, monotonic clock) while the load runs,
    # the load generator's TCP connections to the port under load are read
    # with one SockDiag dump (established sockets to that port, filtered by
    # the kernel, with tcp_info; only sockets whose inode is in the load
    # generator's /proc/PID/fd). Cost, measured on 2 vCPUs: ~0.5 ms of CPU
    # per reading with no connection (the kernel walks its whole connection
    # table, TIME_WAIT included), ~1 ms at c = 16, ~3-4 ms at c = 500: under
    # 1% of a core at 5 Hz for usual levels, ~2% at c = 500. The last reading
    # that found any is kept. In a closed loop a connection always has a
    # request outstanding (the next is sent as soon as an answer ends), so a
    # connection on which nothing was sent or received for a time holds a
    # request that has waited at least that long (Runner::Errors decides
    # which waits are hung requests).
    # Limits: a request answered between the last reading and the tool's
    # exit (at most one interval) after waiting over the timeout is counted
    # by wrk as well; a request whose answer has begun counts its wait from
    # the last bytes received; a server trickling bytes slower than one per timeout is
    # not seen; think time (a scenario's delay) longer than the timeout would
    # look like a hang (none is that long); load from other hosts is not seen
    # (their sockets are not on this machine); Linux only.
    class Unanswered
      INTERVAL = 0.2

      # port: the port the load goes to; pids: callable -> the load generator's pids.
      def initialize(port:, pids:, interval: INTERVAL, clock: Clock)
        @port = port
        @pids = pids
        @interval = interval
        @clock = clock
        @last = nil
      end

      def start
        @readings = Periodic.new(@interval, clock: @clock) { watch }.start
        self
      end

      def stop
        @readings&.stop
        self
      end

      # How long each of the load generator's connections had been silent
      # (nothing sent or received: its request's wait, at least) in the last
      # reading that found any, in ms; nil when none was ever found (not known).
      def ages_ms
        @last&.filter_map { |r| r.last_sent_ms && [r.last_sent_ms, r.last_recv_ms].min.to_f }
      end

      # One reading now: the load generator's connections to the port
      # (SockDiag::Row). The load generator's socket inodes are read from
      # /proc/PID/fd again only when a connection it may own is new.
      def read
        rows = System::SockDiag.dump([:established], info: true, dport: @port)
        if rows.any? { |r| !@inodes&.key?(r.inode) }
          @inodes = @pids.call.flat_map { |pid| System::Sockets.socket_inodes(pid) }.to_h { |i| [i, true] }
        end
        rows.select { |r| @inodes[r.inode] }
      end

      private

      def watch
        return if @unavailable

        rows = read
        @last = rows unless rows.empty?
      rescue SystemCallError, IOError
        @unavailable = true # netlink or /proc unavailable: the count stays unknown
      end
    end
  end
end
