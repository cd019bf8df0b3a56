# frozen_string_literal: true

require_relative "../../error"
require_relative "../../process_control/layout"

module Rackbench
  module Config
    module Rules
      # --aslr off needs setarch to work here (checked before any boot), and
      # makes sense only for servers rackbench starts.
      module Aslr
        ORDER = 140 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          return if cfg[:aslr] == "on"
          raise UsageError, "--aslr off starts the servers rackbench boots; the server at --url is your own: drop --aslr" if cfg[:url]

          ProcessControl::Layout.usable!
        end
      end
    end
  end
end
