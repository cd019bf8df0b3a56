# frozen_string_literal: true

require "socket"

module Rackbench
  module System
    # One sock_diag netlink dump of TCP sockets (NETLINK_SOCK_DIAG, the
    # interface `ss` uses), restricted by the kernel to the TCP states asked
    # for, so it walks only those hash tables (the listening hash alone takes
    # ~0.2 ms on a machine holding 35,000 sockets; /proc/net/tcp lists every
    # TIME_WAIT socket too and took 160 ms). Linux only; sockets of this
    # network namespace only. Raises SystemCallError when netlink is missing.
    module SockDiag
      # One socket: ports, queue figures (for a listener: accept-queue length
      # and its limit; otherwise bytes unread / unsent), the socket's inode
      # (as in /proc/PID/fd's "socket:[INODE]") and, when asked for, the two
      # tcp_info times in milliseconds since data was last sent and received.
      Row = Struct.new(:sport, :dport, :rqueue, :wqueue, :inode, :last_sent_ms, :last_recv_ms, keyword_init: true)

      NETLINK_SOCK_DIAG = 4
      SOCK_DIAG_BY_FAMILY = 20
      NLM_F_REQUEST = 0x1
      NLM_F_DUMP = 0x300
      NLMSG_ERROR = 2
      NLMSG_DONE = 3
      HEADER = 16  # struct nlmsghdr
      SOCKID = 48  # struct inet_diag_sockid
      MSG = 72     # struct inet_diag_msg
      INET_DIAG_INFO = 2 # attribute holding struct tcp_info
      # struct tcp_info: tcpi_last_data_sent at byte 44, tcpi_last_data_recv at 52 (u32, ms).
      LAST_DATA_SENT = 44
      LAST_DATA_RECV = 52
      STATES = { established: 1, listen: 10 }.freeze
      INET_DIAG_REQ_BYTECODE = 1 # request attribute: a filter program the kernel runs per socket
      BC_D_GE = 4 # destination port >= (the port sits in the next op's "no" field)
      BC_D_LE = 5
      FAMILIES = [Socket::AF_INET, Socket::AF_INET6].freeze

      module_function

      # Rows for every TCP socket (IPv4 and IPv6) in one of states
      # (:established, :listen); info: also read tcp_info's times; dport:
      # only sockets whose remote port is this one, filtered by the kernel
      # (a bytecode filter, as `ss dport = :N` does), so a machine holding
      # thousands of connections costs the same as one holding a few.
      def dump(states, info: false, dport: nil)
        mask = states.sum { |s| 1 << STATES.fetch(s) }
        rows = FAMILIES.flat_map { |family| dump_family(family, mask, info, dport) }
        dport ? rows.select { |r| r.dport == dport } : rows
      end

      def dump_family(family, mask, info, dport)
        sock = Socket.new(Socket::AF_NETLINK, Socket::SOCK_DGRAM, NETLINK_SOCK_DIAG)
        ext = info ? 1 << (INET_DIAG_INFO - 1) : 0
        request = [family, Socket::IPPROTO_TCP, ext, 0, mask].pack("CCCCL") + ("\0" * SOCKID) + filter(dport)
        sock.send([HEADER + request.bytesize, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0].pack("LSSLL") + request, 0)
        receive(sock)
      ensure
        sock&.close
      end

      # The filter program as a request attribute: each op is {code, yes,
      # no} (u8, u8, u16): on true skip `yes` bytes, else `no`; running off
      # the end accepts, landing 4 bytes past it rejects. dport >= N and
      # dport <= N, each op followed by one holding N.
      def filter(dport)
        return "" unless dport

        len = 16
        program = [BC_D_GE, 8, len + 4, 0, 0, dport, BC_D_LE, 8, len - 8 + 4, 0, 0, dport].pack("CCSCCS" * 2)
        [4 + len, INET_DIAG_REQ_BYTECODE].pack("SS") + program
      end

      def receive(sock)
        out = []
        loop do
          buf = sock.recv(65_536)
          return out if buf.empty? || parse(buf, out)
        end
      end

      # Appends a Row for each struct inet_diag_msg in buf to out; true at NLMSG_DONE.
      def parse(buf, out)
        offset = 0
        while offset + HEADER <= buf.bytesize
          length, type = buf.unpack("LS", offset: offset)
          return true if type == NLMSG_DONE || length < HEADER
          raise Errno::EPROTO, "sock_diag answered an error" if type == NLMSG_ERROR

          out << row(buf, offset + HEADER, offset + length)
          offset += (length + 3) & ~3
        end
        false
      end

      def row(buf, msg, finish)
        sport, dport = buf.unpack("nn", offset: msg + 4)
        rqueue, wqueue, _uid, inode = buf.unpack("LLLL", offset: msg + 4 + SOCKID + 4)
        sent, recv = times(buf, msg + MSG, finish)
        Row.new(sport: sport, dport: dport, rqueue: rqueue, wqueue: wqueue, inode: inode,
                last_sent_ms: sent, last_recv_ms: recv)
      end

      # The tcp_info times from the message's attributes (struct rtattr: u16
      # length, u16 type, 4-byte aligned), [nil, nil] when absent.
      def times(buf, attr, finish)
        while attr + 4 <= finish
          len, type = buf.unpack("SS", offset: attr)
          break if len < 4

          if type == INET_DIAG_INFO && len >= 4 + LAST_DATA_RECV + 4
            return [buf.unpack1("L", offset: attr + 4 + LAST_DATA_SENT), buf.unpack1("L", offset: attr + 4 + LAST_DATA_RECV)]
          end

          attr += (len + 3) & ~3
        end
        [nil, nil]
      end
    end
  end
end
