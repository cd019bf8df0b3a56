# frozen_string_literal: true

require "fileutils"
require "open3"

module Rackbench
  # git in a test's repository (@repo unless dir: is given), as a user
  # would type it, with an author set: its output, stripped; a failure fails
  # the test with git's words.
  module GitRepo
    def git(*args, dir: @repo)
      out, status = Open3.capture2e("git", "-c", "user.email=t@t", "-c", "user.name=t", *args, chdir: dir)
      assert status.success?, "git #{args.join(' ')}: #{out}"
      out.strip
    end

    # A new repository at dir (made, and @repo) on branch main whose first
    # commit, message, holds config.ru: an app as a user keeps it.
    def app_repo(dir, config_ru, message: "base")
      @repo = dir
      FileUtils.mkdir_p(@repo)
      File.write(File.join(@repo, "config.ru"), config_ru)
      git("init", "-q", "-b", "main", ".")
      git("add", ".")
      git("commit", "-qm", message)
      @repo
    end

    # The pid of a process that has exited and been reaped (a marker's
    # owner that is gone).
    def dead_pid
      pid = Process.spawn("true")
      Process.wait(pid)
      pid
    end
  end
end
