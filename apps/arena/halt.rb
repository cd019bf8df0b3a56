# frozen_string_literal: true

module Rackbench
  module Workload
    module Arena
      # Raised by an endpoint to stop with an error response (400 bad
      # parameter, 502 upstream failure, 503 upstream not configured). The
      # router turns it into a one-line text/plain response; it never reaches
      # the server as an exception.
      class Halt < StandardError
        attr_reader :status

        def initialize(status, message)
          super(message)
          @status = status
        end
      end
    end
  end
end
