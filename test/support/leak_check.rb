# frozen_string_literal: true

require "rackbench/process_control/registry"
require "rackbench/system/process_tree"
require "rackbench/system/sockets"

module Rackbench
  # After the whole suite: no process the suite started may still run or
  # listen. Every child spawned through ProcessControl is remembered (pid and
  # start time, plus daemonized parts such as Passenger's watchdog); any of
  # them alive, or any process still in one of their process groups, is a
  # leak: it is reported, killed, and the suite exits non-zero.
  module LeakCheck
    module_function

    def install
      Minitest.after_run { verify! }
    end

    def leaks
      known = ProcessControl::Registry.history
      groups = known.map(&:pid)
      System::ProcessTree.all.select do |e|
        next false if e.pid == Process.pid || System::ProcessTree.zombie?(e.pid)

        known.any? { |k| k.pid == e.pid && k.starttime == e.starttime } || groups.include?(e.pgid)
      end
    end

    def verify!
      found = leaks
      if found.empty?
        puts "Leak check: none of the #{ProcessControl::Registry.history.size} processes the suite started is left running."
        return
      end
      ports = System::Sockets.ports_of(found.map(&:pid))
      warn "LEAK: #{found.size} process(es) started by the suite still run#{ports.any? ? " (listening on #{ports.join(', ')})" : ''}:"
      found.each { |e| warn "  pid #{e.pid} #{System::ProcessTree.cmdline(e.pid)}" }
      found.each { |e| Process.kill("KILL", e.pid) rescue nil }
      exit 1
    end
  end
end
