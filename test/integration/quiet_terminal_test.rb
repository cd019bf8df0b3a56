# frozen_string_literal: true

require "test_helper"
require "bundler"

# rackbench as a user starts it, from a directory of their own: nothing on
# stderr but what rackbench means to say. A Ruby or Bundler warning here
# ("Unresolved or ambiguous specs ...") came from gems installed beside
# Ruby's default gems: the Rails workload's bundle once was (bin/setup now
# installs it in its own vendor/bundle), and so may any other app's. So
# rackbench's own bundle is apart from the system gems too (bin/setup:
# vendor/bundle under the checkout, issue 34).
class QuietTerminalTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)

  def rackbench(*argv, env: {})
    Bundler.with_unbundled_env do
      env = { "BUNDLE_GEMFILE" => File.join(ROOT, "Gemfile") }.merge(env)
      out, err, status = capture_with_timeout(env, "bundle", "exec", File.join(ROOT, "exe", "rackbench"), *argv, chdir: tmpdir, timeout: 120)
      [status.exitstatus, out, err]
    end
  end

  def test_servers_prints_nothing_on_stderr
    status, out, err = rackbench("servers")
    assert_equal 0, status, err
    assert_match(/^puma\s+\d+\.\d+/, out)
    assert_match(/^thruster\s+\d+\.\d+\.\d+ \(in front: "\.\.\. behind thruster"\)$/, out, "bin/setup installs Thruster")
    assert_equal "", err, "rackbench's bundle sees other gems than its own? `bundle config path` should name " \
                          "vendor/bundle (bin/setup sets it); the Rails workload's gems belong in its own vendor/bundle"
  end

  # Issue 34: another app's `bundle install` put stringio 3.1.0 and 3.2.0
  # into the system gems, and every rackbench command opened with RubyGems'
  # 7-line "Unresolved or ambiguous specs" warning: rackbench's bundle
  # shared the system gem directory. Here the Rails workload's psych 5.5.0
  # (with its date) and stringio 3.2.0 go into a gem directory first on
  # GEM_PATH, as another app's would be in the system's: the Gemfile's
  # `Gem.sources` loads YAML, psych 5.5.0 wants a stringio, two are there.
  # With rackbench's bundle in vendor/bundle (bin/setup), Bundler loads its
  # gems from there alone, and nothing is said.
  def test_another_apps_gems_in_the_system_gems_change_nothing
    cache = Dir[File.join(ROOT, "apps/rails/vendor/bundle/ruby/*/cache")].first
    gems = %w[stringio date psych].map { |name| cache && Dir[File.join(cache, "#{name}-[0-9]*.gem")].max }
    skip "the Rails workload's bundle lacks stringio, date or psych (bin/setup installs it)" unless gems.all?
    other = File.join(tmpdir, "other-apps-gems")
    Bundler.with_unbundled_env do
      assert system("gem", "install", "--local", *gems, "--install-dir", other, "--no-document", "--ignore-dependencies",
                    out: File::NULL, err: File::NULL), "gem install #{gems.join(' ')}"
    end
    status, out, err = rackbench("servers", env: { "GEM_PATH" => [other, *Gem.default_path].join(File::PATH_SEPARATOR) })
    assert_equal 0, status, err
    assert_match(/^puma\s+8\.0\.2/, out)
    assert_equal "", err
  end

  def test_bad_input_prints_its_one_line_and_nothing_else
    status, out, err = rackbench("rn")
    assert_equal 2, status
    assert_equal "", out
    assert_equal "Error: unknown command \"rn\" (did you mean \"run\"?); accepted: run, servers, suites, report, " \
                 "compare, capacity, tune, bisect, gate, doctor (rackbench --help)\n", err
  end
end
