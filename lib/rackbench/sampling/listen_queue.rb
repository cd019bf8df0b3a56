# frozen_string_literal: true

require "socket"

module Rackbench
  module Sampling
    # The kernel's accept queue of listening TCP sockets: connections the
    # kernel completed that the server has not accept(2)ed yet. For a server
    # without keep-alive (Unicorn, Pitchfork) this is where every request
    # waits for a free worker.
    #
    # Method: one sock_diag netlink dump (NETLINK_SOCK_DIAG, the interface
    # `ss` uses) per address family, restricted to sockets in LISTEN state, so
    # the kernel walks only its listening hash: ~0.2 ms for both families on
    # a machine holding 35,000 sockets, where reading /proc/net/tcp took
    # 160 ms (it lists every TIME_WAIT socket too). For a listening socket
    # the kernel reports idiag_rqueue = the accept queue's current length
    # (sk_ack_backlog) and idiag_wqueue = its limit (sk_max_ack_backlog, the
    # listen(2) backlog capped by net.core.somaxconn). /proc/net/tcp has the
    # first as rx_queue but not the second (its tx_queue is 0 for listeners).
    # Limits: Linux only; an instant reading (the queue between readings is
    # not seen); sockets of this network namespace only.
    module ListenQueue
      Depth = Struct.new(:depth, :limit, keyword_init: true)

      NETLINK_SOCK_DIAG = 4
      SOCK_DIAG_BY_FAMILY = 20
      NLM_F_REQUEST = 0x1
      NLM_F_DUMP = 0x300
      NLMSG_ERROR = 2
      NLMSG_DONE = 3
      TCP_LISTEN = 10
      HEADER = 16 # struct nlmsghdr
      SOCKID = 48 # struct inet_diag_sockid
      FAMILIES = [Socket::AF_INET, Socket::AF_INET6].freeze

      module_function

      # Depth of the accept queue on port (summed over every listening socket
      # on it: IPv4, IPv6, SO_REUSEPORT); nil when nothing listens there.
      # Raises SystemCallError when netlink is unavailable.
      def read(port)
        rows = FAMILIES.flat_map { |family| listeners(family) }.select { |r| r[:port] == port }
        return nil if rows.empty?

        Depth.new(depth: rows.sum { |r| r[:rqueue] }, limit: rows.sum { |r| r[:wqueue] })
      end

      # [{port:, rqueue:, wqueue:}] for every listening TCP socket of a family.
      def listeners(family)
        sock = Socket.new(Socket::AF_NETLINK, Socket::SOCK_DGRAM, NETLINK_SOCK_DIAG)
        request = [family, Socket::IPPROTO_TCP, 0, 0, 1 << TCP_LISTEN].pack("CCCCL") + ("\0" * SOCKID)
        sock.send([HEADER + request.bytesize, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0].pack("LSSLL") + request, 0)
        receive(sock)
      ensure
        sock&.close
      end

      def receive(sock)
        out = []
        loop do
          buf = sock.recv(65_536)
          return out if buf.empty?

          done = parse(buf, out)
          return out if done
        end
      end

      # Appends each struct inet_diag_msg in buf to out; true at NLMSG_DONE.
      def parse(buf, out)
        offset = 0
        while offset + HEADER <= buf.bytesize
          length, type = buf.unpack("LS", offset: offset)
          return true if type == NLMSG_DONE || length < HEADER
          raise Errno::EPROTO, "sock_diag answered an error" if type == NLMSG_ERROR

          msg = offset + HEADER
          port = buf.unpack1("n", offset: msg + 4)
          rqueue, wqueue = buf.unpack("LL", offset: msg + 4 + SOCKID + 4)
          out << { port: port, rqueue: rqueue, wqueue: wqueue }
          offset += (length + 3) & ~3
        end
        false
      end
    end
  end
end
