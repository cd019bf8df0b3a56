# frozen_string_literal: true

require "test_helper"
require "bundler"

# rackbench as a user starts it, from a directory of their own: nothing on
# stderr but what rackbench means to say. A Ruby or Bundler warning here
# ("Unresolved or ambiguous specs ...") came from gems installed beside
# Ruby's default gems: the Rails workload's bundle once was (bin/setup now
# installs it in its own vendor/bundle).
class QuietTerminalTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)

  def rackbench(*argv)
    Bundler.with_unbundled_env do
      env = { "BUNDLE_GEMFILE" => File.join(ROOT, "Gemfile") }
      out, err, status = capture_with_timeout(env, "bundle", "exec", File.join(ROOT, "exe", "rackbench"), *argv, chdir: tmpdir, timeout: 120)
      [status.exitstatus, out, err]
    end
  end

  def test_servers_prints_nothing_on_stderr
    status, out, err = rackbench("servers")
    assert_equal 0, status, err
    assert_match(/^puma\s+\d+\.\d+/, out)
    assert_match(/^thruster\s+\d+\.\d+\.\d+ \(in front: "\.\.\. behind thruster"\)$/, out, "bin/setup installs Thruster")
    assert_equal "", err, "a newer version of a default gem in the system gems? `gem list stringio psych erb` " \
                          "should show only the default ones; a machine set up by an older bin/setup needs " \
                          "`gem uninstall stringio:3.2.0 psych:5.5.0 ...` (bin/setup now keeps the Rails " \
                          "workload's gems in its vendor/bundle)"
  end

  def test_bad_input_prints_its_one_line_and_nothing_else
    status, out, err = rackbench("rn")
    assert_equal 2, status
    assert_equal "", out
    assert_equal "Error: unknown command \"rn\" (did you mean \"run\"?); accepted: run, servers, suites, report, " \
                 "compare, capacity, tune, doctor (rackbench --help)\n", err
  end
end
