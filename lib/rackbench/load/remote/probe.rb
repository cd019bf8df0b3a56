# frozen_string_literal: true

require_relative "../../clock"
require_relative "../../error"

module Rackbench
  module Load
    module Remote
      # What rackbench needs to know of a load host before it loads from it
      # (and what `rackbench doctor --load-host` shows): that it answers over
      # SSH, its wrk and version, its cores (its default share) and its wall
      # clock's offset from this machine's.
      #
      # Clock method: this machine's wall clock read just before and after
      # the remote `date +%s.%N`; offset = remote - midpoint, uncertain by
      # half the round trip (reported beside it; it includes connecting).
      Info = Struct.new(:host, :wrk_version, :cores, :clock_offset_s, :round_trip_s, keyword_init: true)

      module Probe
        SCRIPT = "command -v wrk >/dev/null 2>&1 && echo \"RB_WRK $(wrk --version 2>&1 | head -n 1)\" " \
                 "|| echo RB_WRK_MISSING; echo \"RB_CORES $(nproc)\"; echo \"RB_CLOCK $(date +%s.%N)\""
        VERSION = /wrk\s+(?:\S*\/)?v?(\d+(?:\.\d+)+)/.freeze

        module_function

        def call(host, ssh)
          before = Time.now.to_f
          text = ssh.on(host) { capture(SCRIPT, raise_on_non_zero_exit: false) }.delete("\r")
          after = Time.now.to_f
          parse(host, text, before, after)
        end

        def parse(host, text, before, after)
          if text.include?("RB_WRK_MISSING")
            raise Error, "load host #{host.label}: wrk is not installed there (or not on its PATH); install Debian's " \
                         "wrk on it (apt-get install wrk): rackbench installs nothing on load hosts"
          end

          version = text[/^RB_WRK (.*)$/, 1].to_s[VERSION, 1]
          cores = text[/^RB_CORES (\d+)/, 1]&.to_i
          clock = text[/^RB_CLOCK ([\d.]+)/, 1]&.to_f
          raise Error, "load host #{host.label}: could not read its wrk version, cores and clock (got #{text[0, 120].inspect})" unless cores && clock

          Info.new(host: host, wrk_version: version, cores: cores, clock_offset_s: clock - (before + after) / 2,
                   round_trip_s: after - before)
        end
      end
    end
  end
end
