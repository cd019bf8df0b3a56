# frozen_string_literal: true

require "socket"

module Rackbench
  # A free TCP port on 127.0.0.1, chosen by the kernel (bind to port 0). The
  # port is free when returned; ProcessControl::ServerInstance still checks that the process
  # it boots is the one that ends up owning it.
  module Ports
    module_function

    def free
      TCPServer.open("127.0.0.1", 0) { |server| server.addr[1] }
    end
  end
end
