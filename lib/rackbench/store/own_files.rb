# frozen_string_literal: true

require "find"
require_relative "../run_file"

module Rackbench
  module Store
    # What of a run directory is rackbench's own: the files it writes at the
    # top (RunDir::OWN names them) and the folders it writes into. A writer
    # checks them before it measures (RunDir#regular_files!), and report -o
    # never writes over one of them (#same_file).
    module OwnFiles
      # logs/: server and load-generator output, generated configs; refs/:
      # --ref worktrees; tls/: the run's certificate and key; config/: tune's
      # recommended config files (Store::TuneJournal).
      DIRS = %w[logs refs tls config].freeze

      module_function

      # Refuses in one line (Rackbench::RunFile): a link or special file in
      # place of one of the names, a link in place of one of DIRS, or a link
      # anywhere under logs/ (refs/ holds checkouts, whose links are the
      # repository's own).
      def check!(dir, names)
        names.each { |name| RunFile.check!(File.join(dir, name)) }
        DIRS.each do |name|
          path = File.join(dir, name)
          RunFile.refuse_link!(path) if File.symlink?(path)
        end
        under(File.join(dir, "logs")).each { |path| RunFile.refuse_link!(path) if File.symlink?(path) }
        nil
      end

      # The run's own file that path is (same device and inode: a hard link,
      # or a link to it), among the names and everything under logs/ and
      # tls/; nil when path is none of them or does not exist.
      def same_file(dir, names, path)
        want = File.stat(path)
        own = names.map { |n| File.join(dir, n) } + under(File.join(dir, "logs")) + under(File.join(dir, "tls"))
        own.find do |file|
          st = File.lstat(file)
          st.file? && st.dev == want.dev && st.ino == want.ino
        rescue SystemCallError
          false
        end
      rescue SystemCallError
        nil
      end

      # Every path below dir, links not followed ([] without dir).
      def under(dir)
        return [] unless File.directory?(dir) && !File.symlink?(dir)

        Find.find(dir).drop(1)
      end
    end
  end
end
