# frozen_string_literal: true

module Rackbench
  module System
    # Which processes hold a listening TCP socket, from /proc/net/tcp{,6} and
    # /proc/PID/fd (Linux only). Used to prove that the server we booted, not
    # some other process, owns the port we are about to load, and by the test
    # suite to check that nothing it started is left listening.
    module Sockets
      LISTEN = "0A"

      module_function

      # {inode => port} of every listening TCP socket on the machine.
      def listening_inodes(proc_root: "/proc")
        %w[tcp tcp6].each_with_object({}) do |file, out|
          File.foreach("#{proc_root}/net/#{file}").drop(1).each do |line|
            cols = line.split
            next unless cols[3] == LISTEN

            out[cols[9].to_i] = cols[1].split(":").last.to_i(16)
          end
        rescue Errno::ENOENT
          next
        end
      end

      # Ports that any of pids listens on.
      def ports_of(pids, proc_root: "/proc")
        inodes = listening_inodes(proc_root: proc_root)
        pids.flat_map { |pid| socket_inodes(pid, proc_root: proc_root) }.filter_map { |i| inodes[i] }.uniq
      end

      def socket_inodes(pid, proc_root: "/proc")
        Dir.glob("#{proc_root}/#{pid}/fd/*").filter_map do |fd|
          File.readlink(fd)[/\Asocket:\[(\d+)\]\z/, 1]&.to_i
        rescue SystemCallError
          nil
        end
      end

      def port_in_use?(port, proc_root: "/proc")
        listening_inodes(proc_root: proc_root).value?(port)
      end
    end
  end
end
