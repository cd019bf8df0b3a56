# frozen_string_literal: true

require "rbconfig"
require_relative "../process_control/child"
require_relative "../ports"
require_relative "../deadline"
require_relative "../process_control/http_probe"

module Rackbench
  module Workload
    # The upstream server the arena's /network-io endpoints call: a local stub
    # (upstream.rb) with a set delay and body size, so network-io runs are
    # reproducible and never leave this machine.
    class UpstreamStub
      SCRIPT = File.expand_path("upstream.rb", __dir__)

      attr_reader :port

      def initialize(delay:, bytes:, log_dir:)
        @delay = delay
        @bytes = bytes
        @log_path = File.join(log_dir, "upstream.log")
      end

      def url
        "http://127.0.0.1:#{@port}/"
      end

      def start(timeout: 15)
        @port = Ports.free
        @child = ProcessControl::Child.spawn([RbConfig.ruby, SCRIPT, "--port", @port, "--delay", @delay,
                                              "--bytes", @bytes], log_path: @log_path)
        failed = Error.new("the upstream stub for /network-io did not start; see #{@log_path}")
        started = Deadline.in(timeout).wait_until(every: 0.05) do
          next true if File.exist?(@log_path) && File.read(@log_path).include?("listening")
          raise failed unless @child.alive?
        end
        raise failed unless started

        self
      end

      def stop
        @child&.stop("TERM", timeout: 5)
      end
    end
  end
end
