# frozen_string_literal: true

module Rackbench
  class Runner
    class Session
      # What a phase of one boot works on: the session's context (and its
      # config), the setup, the repetition and the Place the server answers
      # at. WarmUp and FrontBoot are phases of this shape.
      class Phase
        def initialize(context, setup, repetition, place)
          @ctx = context
          @config = context.config
          @setup = setup
          @rep = repetition
          @place = place
        end
      end
    end
  end
end
