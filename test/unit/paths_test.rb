# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/file"
require "rackbench/workload/app"
require "rackbench/plan"

# Paths behave the same given relative or absolute, from any directory:
# the command line's against the working directory, a plan file's against
# the plan's own directory.
class PathsTest < Minitest::Test
  App = Rackbench::Workload::App

  def test_app_paths_are_expanded_and_built_in_names_kept
    Dir.chdir(tmpdir) do |cwd|
      assert_equal File.join(cwd, "myapp"), App.expand("myapp")
      assert_equal File.join(cwd, "rails"), App.expand("./rails")
      assert_equal "rails", App.expand("rails")
      assert_equal "arena", App.expand("arena")
    end
    assert_match(/--app is empty/, assert_raises(Rackbench::UsageError) { App.expand("") }.message)
  end

  # `--app apps/rails` in the clone is the built-in Rails workload: its
  # default endpoints are the quick plan's (it has no "/": a default run
  # of it failed every setup on a 404).
  def test_a_path_to_a_built_in_app_is_that_app
    root = File.expand_path("../..", __dir__)
    Dir.chdir(root) do
      assert_equal "rails", App.expand("apps/rails")
      assert_equal "rails", App.expand("./apps/rails/")
      assert_equal "rails", App.expand("apps/rails/config.ru")
      assert_equal "arena", App.expand("apps/arena")
    end
    assert_equal "rails", App.expand("rails/config.ru", base: File.join(root, "apps"))
    plan = Rackbench::Plan.new(Rackbench::Config.build(app: App.expand(File.join(root, "apps", "rails"))))
    assert_equal Rackbench::Config::QUICK_ENDPOINTS, plan.endpoints
    refute plan.own_app?
  end

  def test_a_plan_files_paths_are_relative_to_the_plan
    dir = tmpdir
    FileUtils.mkdir_p(File.join(dir, "plans", "app"))
    File.write(File.join(dir, "plans", "app", "config.ru"), "run ->(_) { [200, {}, ['ok']] }\n")
    plan = File.join(dir, "plans", "bench.rb")
    File.write(plan, %(app "app"\nout "../runs/one"\nsetup "puma x1:2"\n))
    settings = Dir.chdir(tmpdir) { Rackbench::PlanFile.load("#{dir}/plans/bench.rb") }
    assert_equal File.join(dir, "plans", "app"), settings[:app]
    assert_equal File.join(dir, "runs", "one"), settings[:out]
    assert_equal File.join(dir, "plans", "app", "config.ru"), App.resolve(settings[:app]).config_ru
  end

  def test_a_plan_file_given_relatively_resolves_the_same
    dir = tmpdir
    File.write(File.join(dir, "bench.rb"), %(out "runs/x"\n))
    settings = Dir.chdir(dir) { Rackbench::PlanFile.load("bench.rb") }
    assert_equal File.join(dir, "runs", "x"), settings[:out]
  end
end
