# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "rackbench/workload/profile_check"

# --profile in a user's app: stackprof must be in its Gemfile.lock.
class ProfileCheckTest < Minitest::Test
  def app(lock)
    dir = tmpdir
    File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
    File.write(File.join(dir, "Gemfile"), "gem \"puma\"\n")
    File.write(File.join(dir, "Gemfile.lock"), lock)
    Rackbench::Workload::App.new(config_ru: File.join(dir, "config.ru"))
  end

  def test_an_app_whose_lock_lacks_stackprof_is_told_the_line_to_add
    line = Rackbench::Workload::ProfileCheck.problem(app("GEM\n  specs:\n    puma (8.0.2)\n"))
    assert_match(/\A--profile: stackprof is not in your app's bundle \(.*Gemfile\.lock\): add `gem "stackprof", "0\.2\.28"` to /, line)
    assert_match(/and run `bundle install` in .*, or drop --profile\z/, line)
  end

  def test_an_app_with_stackprof_locked_and_the_arena_pass
    assert_nil Rackbench::Workload::ProfileCheck.problem(app("GEM\n  specs:\n    stackprof (0.2.27)\n"))
    assert_nil Rackbench::Workload::ProfileCheck.problem(Rackbench::Workload::App.arena)
  end
end
