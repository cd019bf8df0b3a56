# frozen_string_literal: true

require "digest"
require "fileutils"
require_relative "../error"
require_relative "../run_file"
require_relative "git_worktrees"

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
    # lock names a process no longer alive) is removed by the next run on the
    # same repository. Nothing else of the repository is ever removed
    # (Workload::GitWorktrees says how a worktree is known as rackbench's).
    module GitRefs
      Ref = Struct.new(:name, :sha, keyword_init: true) do
        def short = sha[0, 7]
        # main@1a2b3c4; a ref given as a commit id is its short id alone.
        def label = name.match?(/\A\h{7,40}\z/) ? short : "#{name}@#{short}"
        # Safe characters only; a name with letters beyond ASCII (café,
        # cafè) adds a digest of itself, so two such refs never share one.
        def dir_name
          safe = label.gsub(/[^A-Za-z0-9_.@-]/, "_")
          label.match?(/\A[ -~]*\z/) ? safe : "#{safe}-#{Digest::SHA256.hexdigest(name)[0, 8]}"
        end
        def to_h = { "name" => name, "sha" => sha }
      end

      COPIED = ["config/master.key", "config/credentials/*.key", "db/*.sqlite3", "storage/*.sqlite3"].freeze

      module_function

      # The repository's top directory holding app_root; UsageError when none.
      def top(app_root)
        r = git(%w[rev-parse --show-toplevel], app_root)
        raise UsageError, "--ref: #{app_root} is not in a git repository; --ref checks out commits of the app's repository" unless r.ok

        r.output.lines.last.to_s.strip
      end

      # names (as the user gave them, or {"name","sha"} from a stored run) to
      # Refs; with config_ru, each commit must hold the app (#held!).
      def resolve(app_root, names, config_ru: nil)
        repo = top(app_root)
        names.map do |n|
          next Ref.new(name: n["name"], sha: n["sha"]) if n.is_a?(Hash)

          r = git(["rev-parse", "--verify", "--quiet", "#{n}^{commit}"], repo)
          raise UsageError, no_commit(repo, n) unless r.ok

          Ref.new(name: n, sha: r.output.lines.last.strip).tap { |ref| held!(repo, ref, [app_root, config_ru].compact) }
        end
      end

      # A ref git cannot find; in a shallow clone (actions/checkout fetches
      # one commit by default) the history is what is missing.
      def no_commit(repo, name)
        return "--ref #{name.inspect}: no such commit in #{repo} (a branch, tag or sha: git rev-parse --verify #{name})" \
          unless git(%w[rev-parse --is-shallow-repository], repo).output.lines.last.to_s.strip == "true"

        "--ref #{name.inspect}: no such commit in #{repo}, a shallow clone (it holds only the latest commits): fetch the " \
          "history (git fetch --unshallow; in GitHub Actions, actions/checkout with fetch-depth: 0) and run again"
      end

      # UsageError unless ref's commit holds each of paths (the app's
      # directory, its config.ru): a ref older than the app in a monorepo
      # is named before anything boots (git cat-file -e SHA:PATH).
      def held!(repo, ref, paths)
        paths.each do |path|
          full = File.join(File.realpath(File.dirname(path)), File.basename(path))
          rel = full.delete_prefix("#{File.realpath(repo)}/")
          next if rel == full || git(["cat-file", "-e", "#{ref.sha}:#{rel}"], repo).ok

          raise UsageError, "--ref #{ref.name} (#{ref.short}): #{rel} does not exist at that commit; each ref must hold " \
                            "the app: give a later ref, or --app as the app was at that commit"
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

      # Sentences to warn of before anything boots: the submodules of the
      # refs' commits, which each worktree holds empty (git worktree add
      # does not check them out; rackbench fetches nothing), so an app that
      # loads from one fails to boot, and the failure alone would not say why.
      def warnings(app_root, refs)
        repo = top(app_root)
        found = refs.map(&:sha).uniq.to_h { |sha| [sha, submodules(repo, sha)] }
        refs.group_by { |ref| found[ref.sha] }.reject { |paths, _| paths.empty? }.map do |paths, rs|
          one = paths.size == 1
          "--ref #{rs.map(&:label).join(' and ')}: the commit has #{one ? 'a submodule' : 'submodules'} " \
            "(#{paths.first(3).join(', ')}#{paths.size > 3 ? ' ...' : ''}), which each ref's worktree holds empty (git worktree " \
            "add does not check submodules out): an app that loads code from #{one ? 'it' : 'them'} fails to boot there; " \
            "to measure such refs, check each out with its submodules (git submodule update --init), run each, and " \
            "compare the runs (rackbench compare RUN_A RUN_B)"
        end
      end

      # The submodule paths .gitmodules names at sha ([] without one).
      def submodules(repo, sha)
        r = git(["config", "--blob", "#{sha}:.gitmodules", "--get-regexp", "\\.path$"], repo)
        r.ok ? r.output.lines.map { |line| line.split(" ", 2).last.to_s.strip }.reject(&:empty?) : []
      end

      # Checks each ref out under dir/refs/ (Workload::GitWorktrees: locked
      # as this run's, registered before git makes them) and yields {sha =>
      # app root}; removes them afterwards, whatever happens. Worktrees of
      # runs that are gone are swept first. warn: called with a sentence for
      # each worktree git would not remove (left in place, never deleted).
      def with_worktrees(app_root, refs, dir, warn: ->(_text) {})
        repo = top(app_root)
        GitWorktrees.sweep(repo).compact.each { |text| warn.call(text) }
        made = []
        trees = {}
        sub = File.expand_path(app_root).delete_prefix(File.expand_path(repo))
        refs.uniq(&:sha).each do |ref|
          path = add(repo, ref, File.join(dir, "refs", ref.dir_name), made)
          trees[ref.sha] = File.join(path, sub).tap { |root| copy_untracked(File.expand_path(app_root), root) }
        end
        yield trees
      ensure
        made&.each { |path| GitWorktrees.remove(repo, path, mine: true)&.then { |text| warn.call(text) } }
        refs_dir = File.join(dir, "refs")
        Dir.rmdir(refs_dir) if File.directory?(refs_dir) && !File.symlink?(refs_dir) && Dir.empty?(refs_dir)
      end

      def add(repo, ref, path, made)
        GitWorktrees.add(repo, path, ref.sha, made)
      rescue Error => e
        raise Error, "--ref #{ref.name}: #{e.message}"
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
        RunFile.replace(File.join(to, ".bundle", "config"), text)
      end

      def git(args, chdir) = GitWorktrees.git(args, chdir)
    end
  end
end
