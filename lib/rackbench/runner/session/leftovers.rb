# frozen_string_literal: true

module Rackbench
  class Runner
    class Session
      # What outlived the server's stop (and was stopped): the app's
      # processes, and apart from them the server's own helpers.
      module Leftovers
        module_function

        # The warnings (none, one or two) after instance stopped (nil: not booted).
        def warnings(setup, instance)
          out = []
          left = instance&.leftovers
          if left&.any?
            out << "#{setup.label}: the app left #{left.size} process(es) running after its server stopped " \
                   "(started by the app, outside the server's process group: #{left.first(3).join('; ')}); " \
                   "rackbench stopped them"
          end
          helpers = instance&.helpers
          if helpers&.any?
            out << "#{setup.label}: #{helpers.size} of #{setup.server}'s own helper process(es) outlived its " \
                   "stop (#{helpers.first(3).join('; ')}); rackbench stopped them"
          end
          out
        end
      end
    end
  end
end
