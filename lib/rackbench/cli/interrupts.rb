# frozen_string_literal: true

require_relative "../error"

module Rackbench
  module CLI
    # SIGINT/SIGTERM during a run: raise Interrupted in the main thread so
    # every ensure runs (servers stopped, load generator stopped, partial
    # results kept), then the CLI exits 128 + signal number (130, 143).
    module Interrupts
      SIGNALS = %w[INT TERM].freeze

      module_function

      def guard
        main = Thread.current
        previous = SIGNALS.to_h do |sig|
          [sig, Signal.trap(sig) { main.raise(Interrupted.new(Signal.list.fetch(sig))) }]
        end
        yield
      ensure
        previous&.each { |sig, handler| Signal.trap(sig, handler || "DEFAULT") }
      end
    end
  end
end
