# frozen_string_literal: true

require_relative "../../server"

module Rackbench
  module Search
    class Tune
      # The winner as a config file a deployment can use as it is: the same
      # workers, threads and preloading tune measured, listening on $PORT
      # (3000 when unset) on every interface (rackbench itself binds
      # 127.0.0.1 only; a deployment is usually reached from elsewhere).
      # Each server's adapter writes its own file and says how to start it
      # (Server::Base.deploy_files, .deploy_command); Falcon has no file.
      module ConfigWriter
        module_function

        # {relative path => text}, or {} when the server has no config file.
        def files(setup, header:)
          comment = header.lines.map { |l| "# #{l.chomp}".rstrip }.join("\n")
          Server.adapter_class(setup.server).deploy_files(setup, comment)
        end

        # How to start the winner with that file (shown in the output).
        def command(setup)
          Server.adapter_class(setup.server).deploy_command(setup)
        end
      end
    end
  end
end
