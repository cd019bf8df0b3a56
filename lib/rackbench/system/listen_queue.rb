# frozen_string_literal: true

require_relative "sock_diag"

module Rackbench
  module System
    # The kernel's accept queue of listening TCP sockets: connections the
    # kernel completed that the server has not accept(2)ed yet. For a server
    # without keep-alive (Unicorn, Pitchfork) this is where every request
    # waits for a free worker.
    #
    # Method: one SockDiag dump of sockets in LISTEN state. For a listening socket
    # the kernel reports idiag_rqueue = the accept queue's current length
    # (sk_ack_backlog) and idiag_wqueue = its limit (sk_max_ack_backlog, the
    # listen(2) backlog capped by net.core.somaxconn). /proc/net/tcp has the
    # first as rx_queue but not the second (its tx_queue is 0 for listeners).
    # Limits: Linux only; an instant reading (the queue between readings is
    # not seen); sockets of this network namespace only.
    module ListenQueue
      Depth = Struct.new(:depth, :limit, keyword_init: true)

      module_function

      # Depth of the accept queue on port (summed over every listening socket
      # on it: IPv4, IPv6, SO_REUSEPORT); nil when nothing listens there.
      # Raises SystemCallError when netlink is unavailable.
      def read(port)
        rows = SockDiag.dump([:listen]).select { |r| r.sport == port }
        return nil if rows.empty?

        Depth.new(depth: rows.sum(&:rqueue), limit: rows.sum(&:wqueue))
      end
    end
  end
end
