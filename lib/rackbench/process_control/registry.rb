# frozen_string_literal: true

require_relative "../system/process_tree"
require_relative "../error"

module Rackbench
  module ProcessControl
    # Every live child rackbench started, so an interrupted run (SIGINT,
    # SIGTERM, an exception) can stop them all before exiting.
    module Registry
      @children = []
      @history = []
      @lock = Mutex.new

      module_function

      def add(child)
        entry = System::ProcessTree.read_stat(child.pid)
        @lock.synchronize do
          @children << child
          @history << entry if entry
        end
        @journal&.started(child.pid, child.argv)
      end

      # Yields with journal (a run directory's Journal) writing down every
      # child spawned and stopped meanwhile, and puts back the one before
      # (nil: none) however the block ends. The measuring frame
      # (CLI::Measuring) holds it for the command's whole run; nothing else
      # sets it.
      def journaling(journal)
        before = @journal
        @journal = journal
        yield
      ensure
        @journal = before
      end

      # Every process ever spawned or handed to remember (ProcessTree entries),
      # so a test suite can prove that none of them outlived it.
      def history
        @lock.synchronize { @history.dup }
      end

      def remember(entries)
        @lock.synchronize { @history.concat(entries) }
      end

      def delete(child)
        @lock.synchronize { @children.delete(child) }
        @journal&.stopped(child.pid)
      end

      def live
        @lock.synchronize { @children.dup }
      end

      # Stops the newest first (a load generator before the server it loads).
      # An interrupt arriving meanwhile waits until all are stopped.
      def stop_all(timeout: 5)
        Thread.handle_interrupt(Interrupted => :never) do
          live.reverse_each { |child| child.stop("TERM", timeout: timeout) }
        end
      end

      # True while a live process is in the group of a child not yet
      # stopped, or a remembered process lives (lock-free, as kill_all).
      def anything_left?
        children = @children.dup
        System::ProcessTree.all.any? { |e| children.any? { |child| child.pid == e.pgid } && !System::ProcessTree.zombie?(e.pid) } ||
          @history.dup.any? { |entry| System::ProcessTree.alive?(entry) }
      end

      # True while some child has not been stopped. Lock-free, for a trap
      # handler (see kill_all).
      def any_live?
        !@children.empty?
      end

      # KILLs every live child's process group, every descendant that left its
      # group, and every remembered process still alive (daemonized parts), at
      # once: a repeated interrupt. Called from a trap handler, where a Mutex
      # cannot be locked, so it reads copies of the lists without @lock (a
      # copy of an Array is atomic under the GVL); stop/reaping stays with the
      # main thread's unwinding.
      #
      # A group is killed even when its leader is already reaped: a member
      # that ignored TERM (a helper the server started) stays in the group
      # after the leader exits. Only a group that still has a live member is
      # signalled, so a pid the kernel has since reused is never hit.
      def kill_all
        children = @children.dup
        all = System::ProcessTree.all
        strays = children.flat_map { |child| System::ProcessTree.descendants(child.pid) }
        groups = all.map(&:pgid)
        children.each { |child| child.signal("KILL") if child.status.nil? || groups.include?(child.pid) }
        members = all.select { |e| children.any? { |child| child.pid == e.pgid } }
        (strays + members + @history.dup).each do |entry|
          next if entry.pid == Process.pid || !System::ProcessTree.alive?(entry)

          Process.kill("KILL", entry.pid)
        rescue Errno::ESRCH, Errno::EPERM
          nil
        end
      end
    end
  end
end
