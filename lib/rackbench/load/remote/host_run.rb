# frozen_string_literal: true

require "shellwords"
require_relative "../../error"

module Rackbench
  module Load
    module Remote
      # One wrk run on one load host, over SSH:
      #   1. prepare: a private directory (mktemp -d) with rackbench's Lua
      #      scripts copied in (scp);
      #   2. run: wrk, started by a shell that records its pid, waits for it,
      #      then prints the CPU time it used (the shell's cutime + cstime
      #      from the host's /proc, which holds a reaped child's CPU) and the
      #      wall time around it, and wrk's exit status;
      #   3. cleanup: the directory removed (by the run's own command, or
      #      by #cleanup when the run did not get that far). stop (from another thread, on an
      #      interrupt or error) kills a wrk still running, then cleans up.
      # wrk is bounded by its own -d and --timeout; the command also runs on a
      # pseudo-terminal (Ssh), so a dropped connection hangs it up.
      class HostRun
        SCRIPT_DIR = File.expand_path("../wrk", __dir__)
        SCRIPTS = Dir[File.join(SCRIPT_DIR, "*.lua")].freeze
        CPU = "RACKBENCH_CPU"
        EXIT = "RACKBENCH_EXIT"

        attr_reader :host, :dir

        def initialize(host, ssh)
          @host = host
          @ssh = ssh
          @dir = nil
        end

        def prepare
          dir = @ssh.on(@host) { capture("mktemp -d /tmp/rackbench-load.XXXXXXXX") }.delete("\r").strip
          raise Error, "load host #{@host.label}: mktemp gave #{dir.inspect}" unless dir.start_with?("/tmp/rackbench-load.")

          @dir = dir
          @ssh.on(@host) { upload!(SCRIPT_DIR, dir, recursive: true) } # one scp: DIR/wrk/*.lua
          self
        end

        # The script path this host's wrk is given for a local script.
        def remote_path(local)
          File.join(@dir, "wrk", File.basename(local))
        end

        # argv: wrk's argv with remote script paths. Returns
        # [wrk's output, {"cpu_s", "wall_s"} or nil, exit status].
        def run(argv)
          command = HostRun.command(argv, @dir)
          text = @ssh.on(@host) { capture(command, raise_on_non_zero_exit: false) }
          text = text.delete("\r")
          @dir = nil if text.match?(/^#{EXIT} /) # the command removed it
          [text, cpu(text), text[/^#{EXIT} (\d+)$/, 1]&.to_i]
        end

        def self.command(argv, dir)
          pid = Shellwords.escape(File.join(dir, "wrk.pid"))
          "cd #{Shellwords.escape(dir)} || exit 97; t0=$(date +%s.%N); #{Shellwords.join(argv)} 2>&1 & " \
            "echo $! > #{pid}; wait $!; s=$?; t1=$(date +%s.%N); " \
            "echo; echo \"#{CPU} $(cut -d' ' -f16,17 /proc/$$/stat) $(getconf CLK_TCK) $t0 $t1\"; " \
            "cd /; rm -rf #{Shellwords.escape(dir)}; echo \"#{EXIT} $s\""
        end

        # Kills a wrk still running (its pid file names it) and removes the
        # directory. Never raises: it runs in cleanup paths.
        def stop
          return unless @dir

          dir = @dir
          @ssh.on(@host) do
            execute("p=$(cat #{dir}/wrk.pid 2>/dev/null); [ -n \"$p\" ] && grep -q wrk /proc/$p/cmdline 2>/dev/null && " \
                    "kill -TERM $p; true")
          end
        rescue Error
          nil
        ensure
          cleanup
        end

        def cleanup
          return unless @dir

          dir = @dir
          @dir = nil
          @ssh.on(@host) { execute("rm -rf #{dir}") }
        rescue Error
          nil
        end

        private

        def cpu(text)
          fields = text[/^#{CPU} (.*)$/, 1]&.split or return nil
          utime, stime, tck, t0, t1 = fields.map { |f| Float(f, exception: false) }
          return nil unless [utime, stime, tck, t0, t1].all? && tck.positive?

          { "cpu_s" => ((utime + stime) / tck).round(3), "wall_s" => (t1 - t0).round(3) }
        end
      end
    end
  end
end
