# frozen_string_literal: true

require "fileutils"
require "socket"

module Rackbench
  # Load hosts for tests, on this machine: Debian's sshd started on a
  # loopback address (127.0.0.2, 127.0.0.3, ...) and a free port, with a host
  # key and a client key generated for the test, in the foreground
  # (-D -e -f CONFIG), and stopped by #stop (tests call it in teardown). Root logs in with its key only.
  #
  #   sshd = TestSshd.start(dir, address: "127.0.0.2")
  #   sshd.spec        # "root@127.0.0.2:PORT"
  #   TestSshd.client_key(dir), TestSshd.known_hosts(dir, [sshd, ...])
  #
  # without_wrk: the sessions' PATH holds every program of /usr/bin and /bin
  # except wrk (a load host that lacks it).
  class TestSshd
    SSHD = "/usr/sbin/sshd"

    attr_reader :address, :port, :dir

    def self.available?
      File.executable?(SSHD) && TestHelpers.on_path?("ssh-keygen")
    end

    # The client key pair shared by a test's hosts: DIR/id_ed25519(.pub).
    def self.client_key(dir)
      path = File.join(dir, "id_ed25519")
      keygen(path) unless File.exist?(path)
      path
    end

    # A known_hosts file naming each sshd's host key at [address]:port.
    def self.known_hosts(dir, daemons, name: "known_hosts")
      path = File.join(dir, name)
      File.write(path, daemons.map(&:known_hosts_line).join)
      path
    end

    def self.keygen(path)
      system("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "rackbench-test", "-f", path,
             exception: true, out: File::NULL, err: File::NULL)
    end

    def self.start(dir, address:, without_wrk: false)
      new(dir, address: address, without_wrk: without_wrk).tap(&:start)
    end

    def initialize(dir, address:, without_wrk: false)
      @address = address
      @dir = File.join(dir, "sshd-#{address}")
      @without_wrk = without_wrk
      FileUtils.mkdir_p(@dir)
    end

    def spec
      "root@#{@address}:#{@port}"
    end

    def known_hosts_line
      "[#{@address}]:#{@port} #{File.read(host_key + '.pub').split[0, 2].join(' ')}\n"
    end

    def start
      FileUtils.mkdir_p("/run/sshd", mode: 0o755) # sshd's privilege-separation directory
      self.class.keygen(host_key)
      File.write(File.join(@dir, "authorized_keys"), File.read(self.class.client_key(File.dirname(@dir)) + ".pub"))
      @port = free_port
      File.write(config_path, config)
      # Not through ProcessControl: rackbench run (called in this process by
      # run_cli) stops every child registered there when it ends.
      @pid = Process.spawn(SSHD, "-D", "-e", "-f", config_path, pgroup: true, in: File::NULL,
                           out: [File.join(@dir, "sshd.log"), "a"], err: %i[child out])
      wait_listening
      self
    end

    attr_reader :pid

    # Stops sshd and anything left in its process group, and reaps it.
    def stop
      return unless @pid

      Process.kill("TERM", -@pid) rescue Errno::ESRCH
      Process.wait(@pid)
      @pid = nil
    rescue Errno::ECHILD
      @pid = nil
    end

    def log
      File.read(File.join(@dir, "sshd.log"))
    end

    private

    def host_key
      File.join(@dir, "host_ed25519")
    end

    def config_path
      File.join(@dir, "sshd_config")
    end

    def config
      lines = ["Port #{@port}", "ListenAddress #{@address}", "HostKey #{host_key}",
               "AuthorizedKeysFile #{File.join(@dir, 'authorized_keys')}", "PermitRootLogin prohibit-password",
               "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PubkeyAuthentication yes",
               "StrictModes no", "UsePAM no", "PidFile none", "LogLevel ERROR", "MaxSessions 50", "MaxStartups 50"]
      lines << "SetEnv PATH=#{path_without_wrk}" if @without_wrk
      lines.join("\n") + "\n"
    end

    def path_without_wrk
      bin = File.join(@dir, "bin")
      FileUtils.mkdir_p(bin)
      %w[/usr/bin /bin].each do |from|
        Dir.children(from).each do |name|
          target = File.join(bin, name)
          File.symlink(File.join(from, name), target) unless name == "wrk" || File.exist?(target) || File.symlink?(target)
        end
      end
      bin
    end

    def free_port
      TCPServer.open(@address, 0) { |s| s.addr[1] }
    end

    def wait_listening
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 10
      loop do
        TCPSocket.new(@address, @port).close
        return
      rescue SystemCallError
        raise "sshd on #{@address}:#{@port} did not start: #{log}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

        sleep 0.05
      end
    end
  end
end
