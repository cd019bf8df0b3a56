# frozen_string_literal: true

require "fileutils"
require_relative "../error"
require_relative "../process_control/command"

module Rackbench
  module Workload
    # The worktrees run --ref makes, and only those: how they are made,
    # known again and removed (Workload::GitRefs uses it).
    #
    # Whose a worktree is lives where no commit can put it: in git's own
    # administrative directory, as the worktree's lock (`git worktree add
    # --lock --reason "rackbench pid=N path=P"`). git writes the lock before
    # it checks anything out, so a worktree is marked as rackbench's from
    # the moment it exists; a run killed while git checks out (SIGKILL, the
    # machine's power) leaves a locked worktree that the next run on the
    # repository finds by that reason, its pid gone, and removes. A file in
    # the work tree (what earlier versions wrote) is never read: any commit
    # can add one.
    #
    # What is never touched: the main work tree (the first entry of `git
    # worktree list`, skipped by position and refused by git anyway), a
    # worktree without rackbench's lock reason (the user's own), one whose
    # reason names another path, or a live process. Removal is `git worktree
    # remove --force --force` alone: a path git refuses to remove is left
    # where it is and said, never deleted by rackbench. The one exception is
    # a path this process registered before git made it and that git does
    # not list as a worktree (the part-made directory of an interrupted
    # `git worktree add`): it is inside the run directory this process holds
    # the lock of, and it did not exist before.
    module GitWorktrees
      REASON = /\Arackbench pid=(\d+) path=(.+)\z/

      module_function

      def reason(path) = "rackbench pid=#{Process.pid} path=#{path}"

      # Checks sha out at path, locked as this process's, and returns the
      # path as git names it (its directory's real path). made: the paths
      # this process registered (added before git runs, so an interrupted or
      # failed checkout is still removed by #remove). Error on failure, after
      # removing what git made.
      def add(repo, path, sha, made)
        parent = File.dirname(path)
        refuse_link!(parent)
        FileUtils.mkdir_p(parent)
        refuse_link!(parent)
        path = File.join(File.realpath(parent), File.basename(path))
        raise Error, "#{path} already exists and is not a worktree rackbench made: remove it, or choose another --out" \
          if File.exist?(path) || File.symlink?(path)

        made << path
        # "--": a commit id from a stored run (hand-edited: "--orphan") is never read as an option.
        r = git(["worktree", "add", "--detach", "--lock", "--reason", reason(path), "--", path, sha], repo)
        return path if r.ok

        made_it = list(repo).any? { |e| e[:path] == path }
        remove(repo, path, mine: true)
        raise Error, "git could not check out #{sha[0, 7]} into #{path}: #{r.output.lines.last.to_s.strip}#{hint(repo, r.output, made_it)}"
      end

      # Removes the worktree at path if it is rackbench's; returns nil, or
      # a sentence saying what was left and how to remove it. mine: this
      # process registered path before git made it (see above).
      def remove(repo, path, mine: false)
        entry = list(repo).find { |e| e[:path] == path }
        if entry.nil?
          FileUtils.rm_rf(path) if mine && File.exist?(path) && !File.symlink?(path) # git's part-made checkout
          return nil
        end
        return nil unless ours?(entry)

        r = git(["worktree", "remove", "--force", "--force", path], repo)
        unless r.ok
          return forget(repo, path) unless File.exist?(path)

          return "git would not remove the worktree #{path} (#{r.output.lines.last.to_s.strip}); it is left as it is: " \
                 "remove it with git worktree remove --force --force #{path}"
        end
        git(%w[worktree prune], repo)
        nil
      end

      # The worktrees of runs that are gone (their lock's pid is not alive):
      # removed. Returns the sentences of those git would not remove.
      def sweep(repo)
        git(%w[worktree prune], repo)
        list(repo).drop(1).filter_map do |entry|
          next unless ours?(entry)

          pid = entry[:locked][REASON, 1].to_i
          remove(repo, entry[:path]) unless alive?(pid)
        end
      end

      # A worktree is rackbench's when git holds its lock with rackbench's
      # reason, naming the worktree's own path.
      def ours?(entry)
        m = entry[:locked].to_s.match(REASON)
        m && m[2] == entry[:path]
      end

      # `git worktree list --porcelain` as [{path:, locked:}], in git's
      # order (the main work tree first).
      def list(repo)
        r = git(%w[worktree list --porcelain], repo)
        return [] unless r.ok

        r.output.split(/\n\s*\n/).filter_map do |block|
          path = block[/^worktree (.+)$/, 1] or next
          { path: path, locked: block[/^locked (.+)$/, 1] }
        end
      end

      # A worktree whose directory is gone (deleted by hand): git keeps a
      # locked one registered, so it is unlocked and pruned.
      def forget(repo, path)
        git(["worktree", "unlock", path], repo)
        git(%w[worktree prune], repo)
        nil
      end

      def refuse_link!(dir)
        return unless File.symlink?(dir)

        raise Error, "#{dir} is a symbolic link; rackbench checks refs out only into a directory of the run's own: " \
                     "remove the link, or choose another --out"
      end

      # Causes git's last line does not name. made_it: git had made the
      # worktree when it failed, so what failed came after the checkout.
      def hint(repo, output, made_it)
        if made_it
          return " (git made the worktree, then failed: a post-checkout hook of the repository exited non-zero, " \
                 "e.g. git-lfs's without git-lfs installed; the worktree is removed)"
        end
        return "; the repository is a shallow clone: fetch the commits (git fetch --unshallow)" \
          if File.exist?(File.join(repo, ".git", "shallow")) && output.match?(/not a valid|unknown revision|bad object/i)

        ""
      end

      def alive?(pid)
        return false unless pid.positive?

        Process.kill(0, pid)
        true
      rescue Errno::ESRCH
        false
      rescue Errno::EPERM
        true
      end

      def git(args, chdir)
        ProcessControl::Command.run(["git", *args], chdir: chdir, timeout: 120,
                                                    env: { "GIT_TERMINAL_PROMPT" => "0", "GIT_OPTIONAL_LOCKS" => "0" })
      end
    end
  end
end
