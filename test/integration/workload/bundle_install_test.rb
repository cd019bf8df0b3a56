# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "rackbench/workload/app"
require "rackbench/workload/bundle_install"

# Issue 44, item 2: a commit whose lock names gems not installed gets them
# from this machine's gems (`bundle install --local`, real Bundler, no
# network) before --ref or a bisection refuses it; a gem found nowhere
# here stays a refusal with Bundler's words.
class BundleInstallTest < Minitest::Test
  CACHE = File.expand_path("../../../vendor/bundle/ruby/#{RbConfig::CONFIG['ruby_version']}/cache", __dir__)

  def dir = (@dir ||= tmpdir)

  def app(version, cached:)
    root = File.join(dir, "app-#{version}")
    FileUtils.mkdir_p(File.join(root, ".bundle"))
    File.write(File.join(root, "config.ru"), "run ->(_) { [200, {}, ['ok']] }\n")
    File.write(File.join(root, "Gemfile"), "source \"https://gems.invalid\"\ngem \"rack\", \"#{version}\"\n")
    File.write(File.join(root, "Gemfile.lock"), <<~LOCK)
      GEM
        remote: https://gems.invalid/
        specs:
          rack (#{version})

      PLATFORMS
        ruby

      DEPENDENCIES
        rack (= #{version})

      BUNDLED WITH
         #{Gem::Version.new(Bundler::VERSION)}
    LOCK
    File.write(File.join(root, ".bundle", "config"), "---\nBUNDLE_PATH: \"#{File.join(dir, 'gems')}\"\n")
    if cached
      FileUtils.mkdir_p(File.join(root, "vendor", "cache"))
      FileUtils.cp(File.join(CACHE, "rack-#{version}.gem"), File.join(root, "vendor", "cache"))
    end
    Rackbench::Workload::App.new(config_ru: File.join(root, "config.ru"))
  end

  def test_missing_gems_come_from_this_machine
    a = app("2.2.22", cached: true)
    assert_match(/gems that are not installed \(rack 2\.2\.22\)/, Rackbench::Workload::BundleCheck.problem(a).to_s, "missing before")
    result = Rackbench::Workload::BundleInstall.local(a)
    assert result.installed, result.problem
    assert_nil result.problem
    assert_nil Rackbench::Workload::BundleCheck.problem(a)
    assert Dir.exist?(File.join(dir, "gems", "ruby", RbConfig::CONFIG["ruby_version"], "gems", "rack-2.2.22")), "installed under BUNDLE_PATH"
    again = Rackbench::Workload::BundleInstall.local(a)
    refute again.installed, "a whole bundle installs nothing"
  end

  def test_a_gem_found_nowhere_is_still_refused_with_bundlers_words
    result = Rackbench::Workload::BundleInstall.local(app("2.0.1", cached: false))
    refute result.installed
    assert_match(/gems that are not installed \(rack 2\.0\.1\).*`bundle install --local` could not install them from the gems on this machine: .+/,
                 result.problem)
    refute_includes result.problem, "\n"
    assert_match(/; or give --fetch-gems to let rackbench run `bundle install` from the Gemfile's sources \(the network\)\z/,
                 result.problem, "the line names the flag that fixes it")
  end

  # --fetch-gems: then `bundle install` from the Gemfile's source; one that
  # cannot be reached (.invalid never resolves) is one line with both tries.
  def test_fetch_gems_tries_the_gemfiles_source_after_the_machines_gems
    result = Rackbench::Workload::BundleInstall.local(app("2.0.1", cached: false), fetch: true)
    refute result.installed
    assert_match(/`bundle install --local` could not install them from the gems on this machine: .+; `bundle install` \(--fetch-gems\) could not either: .+\)\z/,
                 result.problem)
    refute_includes result.problem, "\n"
    refute_includes result.problem, "or give --fetch-gems"
  end
end
