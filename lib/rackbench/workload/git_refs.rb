# frozen_string_literal: true

require "fileutils"
require "json"
require_relative "../error"
require_relative "../process_control/command"

module Rackbench
  module Workload
    # run --ref REF (repeatable): two or more commits of the user's app, each
    # checked out by git into the run directory as its own worktree
    # (`git worktree add --detach`), so the user's own work tree, index and
    # branches are never touched. A ref is any git revision ("main", "HEAD~1",
    # a tag, a sha); it is resolved once, to a commit, and the run keeps the
    # commit (meta.json), so `--resume` checks out the same code even if the
    # branch moved. Labels say the ref and its short commit: main@1a2b3c4.
    #
    # What a worktree lacks that the app's own directory has (files git does
    # not track): the app's Bundler settings (.bundle/config, a relative
    # BUNDLE_PATH made absolute so the installed gems are reused) and, for a
    # Rails app, config/master.key, config/credentials/*.key and SQLite
    # databases under db/ and storage/ are copied in. Limits: other untracked
    # files (precompiled assets, .env) are not; each ref is what git holds.
    #
    # A worktree is removed when the run ends; one left by a killed run (its
    # marker names a process no longer alive) is removed by the next run on
    # the same repository.
    module GitRefs
      Ref = Struct.new(:name, :sha, keyword_init: true) do
        def short = sha[0, 7]
        # main@1a2b3c4; a ref given as a commit id is its short id alone.
        def label = name.match?(/\A\h{7,40}\z/) ? short : "#{name}@#{short}"
        def dir_name = label.gsub(/[^A-Za-z0-9_.@-]/, "_")
        def to_h = { "name" => name, "sha" => sha }
      end

      MARKER = ".rackbench-worktree"
      COPIED = ["config/master.key", "config/credentials/*.key", "db/*.sqlite3", "storage/*.sqlite3"].freeze

      module_function

      # The repository's top directory holding app_root; UsageError when none.
      def top(app_root)
        r = git(%w[rev-parse --show-toplevel], app_root)
        raise UsageError, "--ref: #{app_root} is not in a git repository; --ref checks out commits of the app's repository" unless r.ok

        r.output.lines.last.to_s.strip
      end

      # names (as the user gave them, or {"name","sha"} from a stored run) to Refs.
      def resolve(app_root, names)
        repo = top(app_root)
        names.map do |n|
          next Ref.new(name: n["name"], sha: n["sha"]) if n.is_a?(Hash)

          r = git(["rev-parse", "--verify", "--quiet", "#{n}^{commit}"], repo)
          raise UsageError, "--ref #{n.inspect}: no such commit in #{repo} (a branch, tag or sha: git rev-parse --verify #{n})" unless r.ok

          Ref.new(name: n, sha: r.output.lines.last.strip)
        end
      end

      # Words for the run to say: the same commit twice (an A/A), and
      # uncommitted changes that no ref holds.
      def notes(app_root, refs)
        out = []
        twice = refs.group_by(&:sha).values.select { |rs| rs.size > 1 }
        twice.each { |rs| out << "--ref #{rs.map(&:name).join(' and ')} are one commit (#{rs.first.short}): an A/A comparison" }
        dirty = git(%w[status --porcelain --untracked-files=no], top(app_root))
        if dirty.ok && !dirty.output.empty?
          out << "#{top(app_root)} has uncommitted changes; they are not measured: each --ref is a commit (commit them to compare them)"
        end
        out
      end

      # Checks each ref out under dir/refs/ and yields {sha => worktree root};
      # removes the worktrees afterwards, whatever happens.
      def with_worktrees(app_root, refs, dir)
        repo = top(app_root)
        sweep(repo)
        trees = {}
        refs.uniq(&:sha).each { |ref| trees[ref.sha] = add(repo, app_root, ref, File.join(dir, "refs", ref.dir_name)) }
        yield trees
      ensure
        trees&.each_value { |root| remove(repo, worktree_of(root, dir)) }
        refs_dir = File.join(dir, "refs")
        Dir.rmdir(refs_dir) if Dir.exist?(refs_dir) && Dir.empty?(refs_dir)
      end

      # The worktree (dir/refs/NAME) that holds an app root inside it.
      def worktree_of(root, dir)
        base = File.join(dir, "refs")
        File.join(base, root.delete_prefix("#{base}/").split("/").first)
      end

      def add(repo, app_root, ref, path)
        remove(repo, path) if File.exist?(path)
        FileUtils.mkdir_p(File.dirname(path))
        r = git(["worktree", "add", "--detach", path, ref.sha], repo)
        raise Error, "--ref #{ref.name}: git could not check out #{ref.short} into #{path}: #{r.output.lines.last.to_s.strip}" unless r.ok

        File.write(File.join(path, MARKER), JSON.generate({ "pid" => Process.pid, "ref" => ref.to_h }))
        sub = File.expand_path(app_root).delete_prefix(File.expand_path(repo))
        root = File.join(path, sub)
        copy_untracked(File.expand_path(app_root), root)
        root
      end

      def remove(repo, path)
        git(["worktree", "remove", "--force", path], repo)
        FileUtils.rm_rf(path)
        git(%w[worktree prune], repo)
      end

      # Worktrees a killed run left: their marker's process is gone.
      def sweep(repo)
        git(%w[worktree prune], repo)
        list = git(%w[worktree list --porcelain], repo)
        return unless list.ok

        list.output.scan(/^worktree (.+)$/).flatten.each do |path|
          marker = File.join(path, MARKER)
          next unless File.file?(marker)

          pid = (JSON.parse(File.read(marker))["pid"] rescue nil)
          remove(repo, path) unless pid.is_a?(Integer) && alive?(pid)
        end
      end

      def alive?(pid)
        Process.kill(0, pid)
        true
      rescue Errno::ESRCH
        false
      rescue Errno::EPERM
        true
      end

      # The app's untracked files a ref needs to boot (see above).
      def copy_untracked(from, to)
        COPIED.each do |pattern|
          Dir.glob(File.join(from, pattern)).each do |file|
            target = File.join(to, file.delete_prefix("#{from}/"))
            FileUtils.mkdir_p(File.dirname(target))
            FileUtils.cp(file, target) unless File.exist?(target)
          end
        end
        bundle_config(from, to)
      end

      # .bundle/config with BUNDLE_PATH absolute (the app's installed gems).
      def bundle_config(from, to)
        source = File.join(from, ".bundle", "config")
        return unless File.file?(source)

        text = File.read(source).gsub(/^(BUNDLE_PATH: )"?([^"\n]+)"?$/) do
          key = Regexp.last_match(1)
          value = Regexp.last_match(2)
          %(#{key}"#{File.expand_path(value, from)}")
        end
        FileUtils.mkdir_p(File.join(to, ".bundle"))
        File.write(File.join(to, ".bundle", "config"), text)
      end

      def git(args, chdir)
        ProcessControl::Command.run(["git", *args], chdir: chdir, timeout: 120,
                                                    env: { "GIT_TERMINAL_PROMPT" => "0", "GIT_OPTIONAL_LOCKS" => "0" })
      end
    end
  end
end
