# frozen_string_literal: true

require "test_helper"
require "rackbench/server"
require "rackbench/workload/app"

# A user's app whose bundle is not installed says what to do.
class AppBundleTest < Minitest::Test
  def app_with(gemfile, lock: nil)
    dir = tmpdir
    File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
    File.write(File.join(dir, "Gemfile"), gemfile)
    File.write(File.join(dir, "Gemfile.lock"), lock) if lock
    dir
  end

  def test_a_gemfile_without_a_lock_file_asks_for_the_apps_own_setup
    dir = app_with(%(source "https://example.invalid"\ngem "puma", "~> 4.3"\n))
    status, _out, err = run_cli("run", "--app", dir, "-s", "puma x1:1", "-o", File.join(tmpdir, "run"))
    assert_equal 1, status
    assert_equal "Error: puma is not installed in your app's bundle: its Gemfile has no Gemfile.lock yet: " \
                 "run `bundle install` in #{dir} (the app's own setup) first\n", err
  end

  def test_a_lock_file_without_the_named_server_asks_for_bundle_install
    dir = app_with(%(gem 'puma'\n), lock: "GEM\n  specs:\n    rack (2.2.8)\n")
    hint = Rackbench::Server.adapter("puma", app: Rackbench::Workload::App.resolve(dir)).install_hint
    assert_equal "its Gemfile names puma but Gemfile.lock lacks it: run `bundle install` in #{dir}", hint
    unicorn = Rackbench::Server.adapter("unicorn", app: Rackbench::Workload::App.resolve(dir)).install_hint
    assert_equal "add `gem \"unicorn\"` to #{File.join(dir, 'Gemfile')} and run bundle install", unicorn
  end
end
