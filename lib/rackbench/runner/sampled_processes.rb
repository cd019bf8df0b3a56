# frozen_string_literal: true

require_relative "../sampling/sampler"
require_relative "../system/process_tree"
require_relative "../process_control/registry"
require_relative "../load"

module Rackbench
  class Runner
    # Which processes a trial samples, by role: the server's master and
    # workers (re-discovered by the sampler, as workers restart), the proxy in
    # front (nginx, Thruster) as "proxy", and the load generator as "client" (the live
    # children rackbench started from a load engine's program, as each
    # engine registers it: Load.processes). (Named apart from
    # Rackbench::Sampling, which it drives, so neither hides the other.)
    module SampledProcesses
      module_function

      def sampler(instance:, front:, pid:)
        roles = roles(instance, front, pid)
        roles && Sampling::Sampler.new(roles: roles, client: -> { client_pids })
      end

      def roles(instance, front, pid)
        if instance
          server = Sampling::Sampler.roles_for(instance)
          return server unless front

          -> { server.call.merge("proxy" => front.processes) }
        elsif pid
          -> { { "worker" => Rackbench::System::ProcessTree.tree(pid) } }
        end
      end

      def client_pids
        ProcessControl::Registry.live.select { |c| Load.processes.include?(File.basename(c.argv.first)) }.map(&:pid)
      end
    end
  end
end
