# frozen_string_literal: true

require "etc"
require_relative "../error"

module Rackbench
  module ProcessControl
    # --cpus: the server's processes (and nginx in front) and the load
    # generator on disjoint CPU sets, so they stop taking each other's time.
    #
    # Method: a process is started as `taskset -c LIST PROGRAM ...`
    # (util-linux): taskset sets the CPU affinity (sched_setaffinity) of its
    # own process and then execs PROGRAM in it, so the pid rackbench reaps is
    # the program's, and every process the program forks later (Puma's and
    # Unicorn's workers, nginx's) inherits the set. The sets are checked
    # before any process starts: each CPU must be online AND in the set this
    # process may use (/proc/self/status Cpus_allowed_list: a container's or
    # a cgroup's cpuset); the two sets must not overlap.
    #
    # --cpus auto splits the CPUs rackbench may use by a stated rule: the
    # load generator gets the last quarter of them, rounded up (at least one),
    # the server all the others. On 2 CPUs: server 0, client 1; on 8: server
    # 0-5, client 6-7. Needs at least 2 CPUs.
    module Affinity
      Sets = Struct.new(:server, :client, :rule, keyword_init: true) do
        # As stored in meta.json, trials.jsonl and the config (JSON).
        def to_h
          { "server" => Affinity.format_list(server), "client" => Affinity.format_list(client), "rule" => rule }
        end
      end

      AUTO_RULE = "auto: the load generator on the last quarter of the usable CPUs (at least one), the server on the rest"
      USAGE = "--cpus server=LIST,client=LIST (e.g. server=0-2,client=3) or --cpus auto"
      TASKSET = "taskset"

      module_function

      # value: "auto", "server=0-1,client=2", a stored Hash, or nil.
      # Returns Sets or nil; raises UsageError with one line.
      def parse(value, usable: usable_cpus)
        return nil if value.nil? || value == ""
        return from_hash(value, usable) if value.is_a?(Hash)

        text = value.to_s.strip
        return auto(usable) if text.casecmp?("auto")

        parts = text.split(/,(?=\s*(?:server|client)\s*=)/i).to_h do |part|
          role, list = part.split("=", 2).map(&:strip)
          raise UsageError, "#{USAGE}; got #{value.inspect}" unless %w[server client].include?(role&.downcase) && list

          [role.downcase, list]
        end
        raise UsageError, "#{USAGE}; give both sets, got #{value.inspect}" unless parts.size == 2

        checked(cpus(parts["server"]), cpus(parts["client"]), "given", usable)
      end

      def from_hash(hash, usable)
        h = hash.transform_keys(&:to_s)
        checked(cpus(h["server"].to_s), cpus(h["client"].to_s), h["rule"] || "given", usable)
      end

      def auto(usable)
        if usable.size < 2
          raise UsageError, "--cpus auto needs at least 2 usable CPUs to separate server and client, " \
                            "this process may use #{format_list(usable)}; drop --cpus"
        end

        client = usable.last((usable.size / 4.0).ceil)
        Sets.new(server: usable - client, client: client, rule: AUTO_RULE)
      end

      def checked(server, client, rule, usable)
        shared = server & client
        unless shared.empty?
          raise UsageError, "--cpus server and client sets overlap on CPU #{format_list(shared)}; give disjoint sets, " \
                            "e.g. server=0,client=1"
        end
        missing = (server + client) - online_cpus
        raise UsageError, "--cpus names CPU #{format_list(missing)}, which this machine does not have " \
                          "(online: #{format_list(online_cpus)}); pick from those" unless missing.empty?
        denied = (server + client) - usable
        raise UsageError, "--cpus: affinity to CPU #{format_list(denied)} is not permitted here (this process may use " \
                          "#{format_list(usable)}: a cgroup or container limit); pick from those" unless denied.empty?
        raise UsageError, "--cpus needs taskset (util-linux) on PATH: apt-get install util-linux" unless taskset?

        Sets.new(server: server, client: client, rule: rule)
      end

      # "0-2,5" -> [0, 1, 2, 5]
      def cpus(list)
        ids = list.to_s.split(",").flat_map do |item|
          a, b = item.strip.split("-", 2)
          lo = Integer(a, 10)
          hi = b ? Integer(b, 10) : lo
          raise ArgumentError if lo.negative? || hi < lo

          (lo..hi).to_a
        end
        raise ArgumentError if ids.empty?

        ids.uniq.sort
      rescue ArgumentError, TypeError
        raise UsageError, "--cpus set #{list.inspect} is not a CPU list like 0-2,5; #{USAGE}"
      end

      # [0, 1, 2, 5] -> "0-2,5"
      def format_list(ids)
        ids.sort.slice_when { |a, b| b != a + 1 }.map { |r| r.size > 1 ? "#{r.first}-#{r.last}" : r.first.to_s }.join(",")
      end

      def online_cpus(sys_root: "/sys")
        cpus(File.read("#{sys_root}/devices/system/cpu/online").strip)
      rescue SystemCallError, UsageError
        (0...Etc.nprocessors).to_a
      end

      # The CPUs this process may run on (its affinity mask).
      def usable_cpus(proc_root: "/proc")
        cpus(File.read("#{proc_root}/self/status")[/^Cpus_allowed_list:\s*(\S+)/, 1])
      rescue SystemCallError, UsageError
        online_cpus
      end

      # The CPUs a running process may use (nil when gone).
      def of(pid, proc_root: "/proc")
        list = File.read("#{proc_root}/#{pid}/status")[/^Cpus_allowed_list:\s*(\S+)/, 1]
        list && cpus(list)
      rescue SystemCallError
        nil
      end

      def taskset?
        ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).any? { |d| File.executable?(File.join(d, TASKSET)) }
      end

      # argv run on the CPUs in ids (nil or empty: unchanged).
      def wrap(argv, ids)
        return argv if ids.nil? || ids.empty?

        [TASKSET, "-c", format_list(ids), *argv]
      end

      # The record a trial stores: the sets, and whether server and client
      # shared cores (true without --cpus: the scheduler put them anywhere).
      def record(sets)
        return { "shared" => true } unless sets

        sets.to_h.merge("shared" => false)
      end

      # Gives a load engine the client set (engines that start no local
      # program ignore it).
      def pin(engine, sets)
        engine.cpus = sets&.client if engine.respond_to?(:cpus=)
        engine
      end
    end
  end
end
