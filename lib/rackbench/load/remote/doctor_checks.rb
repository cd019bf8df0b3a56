# frozen_string_literal: true

require_relative "../../finding"
require_relative "../../error"
require_relative "probe"

module Rackbench
  module Load
    module Remote
      # `rackbench doctor --load-host ...`: one finding per load host, checked
      # all at once (Probe): reachable over SSH with keys, its wrk version, its
      # cores (its default share) and its clock's offset from this machine's.
      module DoctorChecks
        CLOCK_WARN_S = 1.0

        module_function

        def findings(hosts, ssh)
          hosts.map { |h| Thread.new { Thread.current.report_on_exception = false; finding(h, ssh) } }.map(&:value)
        end

        def finding(host, ssh)
          info = Probe.call(host, ssh)
          offset = info.clock_offset_s
          text = "#{host.label}: wrk #{info.wrk_version || '(version unknown)'}, #{info.cores} cores, clock " \
                 "#{format('%+.3f', offset)} s from this machine's (within #{format('%.3f', info.round_trip_s / 2)} s)"
          far = offset.abs - info.round_trip_s / 2 > CLOCK_WARN_S
          text += ": synchronise its clock (NTP) so stored times agree" if far
          Rackbench::Finding.new(level: far ? :warn : :ok, topic: "load host", text: text)
        rescue Error => e
          Rackbench::Finding.new(level: :fail, topic: "load host", text: e.message.sub(/\Aload host /, ""))
        end
      end
    end
  end
end
