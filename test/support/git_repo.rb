# frozen_string_literal: true

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
  end
end
