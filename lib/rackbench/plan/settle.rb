# frozen_string_literal: true

require_relative "settle/refs"
require_relative "settle/servers"
require_relative "settle/space"

module Rackbench
  module Config
    # What a run's settings take from outside their layers, settled by the
    # builder (Config.build(..., world:)) after the rules and before the
    # value is frozen (issue 45, item 1): the refs' commits (git:
    # Settle::Refs) and the default plan's servers that can run with the
    # app (its bundle: Settle::Servers), tune's servers (Settle::Space).
    # What a step settles is checked by
    # the rules again, so a settled value is a checked one.
    #
    # A build without a world takes its layers as they are: a stored run
    # read back from meta.json (its refs are {"name", "sha"} and its setups
    # named already), a search's level, a test.
    module Settle
      # The outside world a build asks (the environment), and what its steps
      # said there, in order, for the command to tell its listener: notes
      # (a ref's commit) and warnings (servers left out, a ref's caveat).
      class World
        attr_reader :env, :said

        def initialize(env = ENV)
          @env = env
          @said = []
        end

        def note(text) = @said << [:note, text]
        def warning(text) = @said << [:warning, text]

        # Says each to listener (Report::Listener: #note, #warning).
        def tell(listener)
          @said.each { |kind, text| listener.public_send(kind, text) }
        end
      end

      STEPS = [Refs, Servers, Space].sort_by { |step| step::ORDER }.freeze

      module_function

      # cfg (validated) with what every step of STEPS settles, in ORDER.
      def call(cfg, world)
        STEPS.reduce(cfg) do |settled, step|
          values = step.settle(settled.dup.freeze, world)
          values ? settled.merge(values) : settled
        end
      end
    end
  end
end
