# frozen_string_literal: true

require_relative "../../error"
require_relative "../../workload/git_worktrees"

module Rackbench
  module Search
    module Bisect
      # The commits a bisection walks: good, then the first-parent path from
      # good to bad (`git rev-list --first-parent --reverse GOOD..BAD`), bad
      # last. A merge on that path counts as one commit (the branch it
      # merged is not entered), as `git bisect --first-parent` does. Each
      # commit knows its tree (`SHA^{tree}`): two commits with one tree hold
      # the same code, and are measured once.
      #
      # Bad input is one UsageError line each, read by git alone, before
      # anything is checked out or booted.
      class Path
        Commit = Struct.new(:sha, :tree, :subject, keyword_init: true) do
          def short = sha[0, 7]
          def to_h = { "sha" => sha, "tree" => tree, "subject" => subject }
        end

        attr_reader :repo, :commits

        # app_root: a directory of the repository (the app's).
        def self.resolve(app_root, good, bad)
          repo = top(app_root)
          good_sha = commit!(repo, good, "--good")
          bad_sha = commit!(repo, bad, "--bad")
          raise UsageError, "--good #{good} and --bad #{bad} are one commit (#{good_sha[0, 7]}): nothing lies between them" \
            if good_sha == bad_sha
          unless git(["merge-base", "--is-ancestor", good_sha, bad_sha], repo).ok
            raise UsageError, "--good #{good} (#{good_sha[0, 7]}) is not an ancestor of --bad #{bad} (#{bad_sha[0, 7]}); " \
                              "bisect walks the history from good to bad: give an older --good"
          end
          new(repo, [good_sha, *between(repo, good_sha, bad_sha)])
        end

        def self.top(dir)
          r = File.directory?(dir.to_s) ? git(%w[rev-parse --show-toplevel], dir) : nil
          raise UsageError, "--app #{dir} is not in a git repository; bisect walks the app's git history" unless r&.ok

          r.output.lines.last.to_s.strip
        end

        def self.commit!(repo, name, flag)
          r = git(["rev-parse", "--verify", "--quiet", "#{name}^{commit}"], repo)
          raise UsageError, "#{flag} #{name.inspect}: no such commit in #{repo} (a branch, tag or sha: git rev-parse --verify #{name})" \
            unless r.ok

          r.output.lines.last.strip
        end

        def self.between(repo, good, bad)
          r = git(["rev-list", "--first-parent", "--reverse", "#{good}..#{bad}"], repo)
          raise Error, "git rev-list failed in #{repo}: #{r.output.lines.last.to_s.strip}" unless r.ok

          shas = r.output.lines.map(&:strip).grep(/\A\h{40,64}\z/)
          return shas if shas.last == bad

          raise UsageError, "#{bad[0, 7]} is not on the first-parent path from #{good[0, 7]}: give a --good on bad's first-parent history"
        end

        def self.git(args, dir) = Workload::GitWorktrees.git(args, dir)

        # shas: good first, bad last.
        def initialize(repo, shas, described: nil)
          @repo = repo
          @commits = described || describe(shas)
        end

        def good = @commits.first
        def bad = @commits.last
        # The commits after good (index 1..size): what a bisection may name.
        def size = @commits.size - 1
        def [](index) = @commits[index]

        private

        # One git call for every commit's tree and subject.
        def describe(shas)
          r = self.class.git(["log", "--no-walk=unsorted", "--format=%H %T %s", *shas], @repo)
          raise Error, "git log failed in #{@repo}: #{r.output.lines.last.to_s.strip}" unless r.ok

          found = r.output.lines.to_h do |line|
            sha, tree, subject = line.chomp.split(" ", 3)
            [sha, Commit.new(sha: sha, tree: tree, subject: subject.to_s)]
          end
          shas.map { |sha| found.fetch(sha) { raise Error, "git log did not describe #{sha[0, 7]} in #{@repo}" } }
        end
      end
    end
  end
end
