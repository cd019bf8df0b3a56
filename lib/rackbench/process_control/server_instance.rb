# frozen_string_literal: true

require "fileutils"
require "securerandom"
require_relative "owner_mark"
require_relative "orphans"
require_relative "lifecycle"
require_relative "../system/process_tree"
require_relative "../system/sockets"
require_relative "../deadline"
require_relative "../error"
require_relative "../run_file"
require_relative "error_line"
require_relative "boot_advice"

module Rackbench
  module ProcessControl
    # One booted server: spawn -> ready -> workers found -> stop, the boot,
    # wait and stop being the Lifecycle every process rackbench boots goes
    # through (the proxies in front too).
    #
    # Ready means all three: the process is alive, an HTTP request to
    # ready_path was accepted (any answer, or a connection accepted and held
    # without one: a server that never answers is then caught by
    # verification or counted as timeouts, not mistaken for a slow boot), and
    # the listening socket on the port belongs to this server's process tree
    # (so another program holding the port can never be mistaken for the
    # server under test). Deadlines use the monotonic clock.
    class ServerInstance
      attr_reader :setup, :adapter, :port, :dir, :argv, :files

      # Processes the app started that outlived the server's stop (daemons
      # that left its process group), found by this boot's mark and stopped;
      # helpers: those the adapter knows as the server's own (helper?).
      attr_reader :leftovers, :helpers

      # The graceful signal's seconds before KILL (--stop-timeout).
      attr_reader :stop_timeout

      # host: the address the server listens on (--bind); tls: the run's
      # certificate (Tls::Certificate) when it serves HTTPS (--tls);
      # fixed_layout: address randomisation off (--aslr off, Layout).
      def initialize(adapter:, setup:, app:, port:, dir:, env: {}, ready_path: "/", boot_timeout: 60,
                     stop_timeout: 15, host: "127.0.0.1", cpus: nil, tls: nil, fixed_layout: false)
        @fixed_layout = fixed_layout
        @host = host
        @tls = tls
        @cpus = cpus
        @adapter = adapter
        @setup = setup
        @app = app
        @port = port
        @dir = dir
        @env = env
        @ready_path = ready_path
        @boot_timeout = boot_timeout
        @stop_timeout = stop_timeout
      end

      def log_path
        File.join(@dir, "server.log")
      end

      attr_reader :tls

      def url(path = "/")
        "#{@tls ? 'https' : 'http'}://#{@host}:#{@port}#{path}"
      end

      def start
        FileUtils.mkdir_p(@dir)
        raise port_taken if System::Sockets.port_in_use?(@port)

        tls = @tls ? { tls: @tls } : {}
        @files = @adapter.files(@setup, port: @port, dir: @dir, **tls)
        @files.each { |path, text| write_file(path, text) }
        @argv = @adapter.argv(@setup, app: @app, port: @port, dir: @dir, **(@host == "127.0.0.1" ? {} : { host: @host }), **tls)
        @boot = SecureRandom.hex(8)
        @spawned_at = Orphans.now
        @life = Lifecycle.new(host: @host, port: @port, tls: @tls)
        @life.spawn(@argv, env: @adapter.env(@setup).merge(@env, OwnerMark::BOOT_VAR => @boot),
                           chdir: app_root, log_path: log_path, cpus: @cpus, fixed_layout: @fixed_layout,
                           log_paths: [log_path] + @adapter.log_files(@dir))
        deadline = Deadline.in(@boot_timeout)
        wait_ready(deadline)
        wait_workers(deadline)
        self
      rescue StandardError
        stop
        raise
      end

      # Every process of this server: the spawned tree plus daemonized parts.
      def processes
        roots = [child.pid] + @adapter.extra_roots(@dir)
        roots.flat_map { |pid| System::ProcessTree.tree(pid) }.uniq(&:pid)
      end

      # The processes that serve requests: the master alone when single, its
      # workers otherwise, and the master beside them when it serves too (Agoo).
      def workers(entries = processes)
        return entries.select { |e| e.pid == child.pid } if @adapter.runs_one_process?(@setup)

        master = @adapter.master_serves?(@setup)
        entries.select { |e| e.pid == child.pid ? master : @adapter.worker?(e, child.pid) }
      end

      # The server's Child (Lifecycle#child); nil before start.
      def child
        @life&.child
      end

      def alive?
        @life&.alive? || false
      end

      # An interrupt arriving meanwhile waits until the stop is done.
      def stop
        return unless child

        Thread.handle_interrupt(Interrupted => :never) do
          @life.stop(@adapter.graceful_signal, timeout: @stop_timeout, also: processes, leader_only: @adapter.graceful_to_master?)
          stop_leftovers
        end
      end

      # True when the stop had to KILL the server: still running when its
      # graceful signal's stop_timeout ran out (Child#forced?).
      def forced_stop?
        child&.forced? || false
      end

      # Anything still carrying this boot's mark once the server is stopped
      # was started by the app and escaped its process group (a double fork,
      # setsid): stopped too (TERM, then KILL), and kept for the caller to say.
      # So is an orphan re-parented to rackbench since this boot (Orphans:
      # found by ancestry, a scrubbed environment included) while no other
      # process rackbench spawned runs to have left it; else the run's end
      # stops it (CLI::Measuring).
      def stop_leftovers
        left = OwnerMark.left_by(@boot)
        left |= Orphans.adopted(since: @spawned_at) if @spawned_at && Registry.live.empty?
        lines = Orphans.stop(left.uniq(&:pid))
        @helpers, @leftovers = self.class.helpers_apart(lines, @adapter)
      end

      # ["PID cmdline"] -> [the server's own helpers, the app's].
      def self.helpers_apart(lines, adapter)
        lines.partition { |l| adapter.helper?(l.sub(/\A\d+ /, "")) }
      end

      def log_tail(lines = 15)
        ProcessControl::ErrorLine.tail(log_path, lines)
      end

      private

      # Lifecycle#wait_ready, and a port another program holds said after 5 s.
      def wait_ready(deadline)
        case @life.wait_ready(deadline, path: @ready_path, every: 0.1, pids: -> { processes.map(&:pid) }) do
          raise port_taken if System::Sockets.port_in_use?(@port) && !owns_port? && slept_a_while?(deadline)
        end
        when :exited then raise boot_exit
        when :late then raise failed("did not answer on port #{@port} within #{@boot_timeout} s")
        end
      end

      def slept_a_while?(deadline)
        deadline.left < @boot_timeout - 5
      end

      def wait_workers(deadline)
        want = @adapter.expected_workers(@setup)
        return if want.zero?

        [deadline, Deadline.in(10)].max.wait_until(every: 0.1) { workers.size >= want || !child.alive? || gave_up? }
        found = workers.size
        raise failed("found #{found} of #{want} worker processes after boot#{workers_why(found)}") if found < want
      end

      # The server's log says it will start no worker (Passenger: "Could not
      # spawn process"), so waiting out the boot timeout would gain nothing.
      def gave_up?
        @adapter.spawn_failed?(ProcessControl::ErrorLine.tail_text(log_path))
      end

      # Workers that never came up are usually an app that fails to load in
      # them (Passenger answers its own error page meanwhile): quote the log,
      # with advice that fits the error (ProcessControl::BootAdvice).
      def workers_why(found)
        line = ProcessControl::ErrorLine.first(ProcessControl::ErrorLine.tail(log_path))
        return "" unless found.zero? && line&.match?(ProcessControl::ErrorLine::ERROR)

        " (the app did not start in them: #{[line, ProcessControl::BootAdvice.app_load(line, root: app_root)].compact.join('; ')})"
      end

      def app_root
        @adapter.app_root(@app)
      end

      # A file that starts with "#!" is a script the server runs (Passenger's
      # --ruby wrapper): written executable.
      def write_file(path, text)
        FileUtils.mkdir_p(File.dirname(path))
        perm = if text.start_with?("#!") then 0o755
               elsif text.include?("PRIVATE KEY-----") then 0o600 # a copy of the run's TLS key (Falcon's)
               else 0o644
               end
        RunFile.replace(path, text, perm)
        File.chmod(perm, path) # the umask may have taken bits off
      end

      def owns_port?
        System::Sockets.ports_of(processes.map(&:pid)).include?(@port)
      end

      def boot_exit
        tail = log_tail
        return port_taken if tail.match?(/address already in use|EADDRINUSE/i)

        line = ProcessControl::ErrorLine.first(ProcessControl::ErrorLine.tail(log_path)) || "(empty log)"
        failed("exited during boot (#{child.exit_summary}): #{[line, ProcessControl::BootAdvice.bundle(line, root: app_root)].compact.join('; ')}")
      end

      def port_taken
        SetupFailed.new("#{@setup.label}: port #{@port} on #{@host} is already in use by another process; " \
                        "stop that process or choose another port", log_tail: log_tail)
      end

      def failed(what)
        SetupFailed.new("#{@setup.label}: server #{what}; see #{log_path}", log_tail: log_tail)
      end
    end
  end
end
