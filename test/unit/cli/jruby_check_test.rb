# frozen_string_literal: true

require "test_helper"
require "rackbench/cli/jruby_check"
require "rackbench/plan/setup"
require "rackbench/workload/app"

# "on jruby" with an app other than the arena is refused before anything
# boots, saying why for the built-in Rails workload (seed 001's SQLite page).
class JrubyCheckTest < Minitest::Test
  Runtime = Struct.new(:ok) do
    def check! = true
  end

  def refusal(app)
    setups = [Rackbench::Setup.parse("puma x1:4 on jruby")]
    adapter = Struct.new(:x) { def available? = true }
    Rackbench::Server::ADAPTERS.fetch("puma").runtime_adapters.fetch("jruby").stub(:new, adapter.new) do
      assert_raises(Rackbench::UsageError) { Rackbench::CLI::JrubyCheck.check!(setups, app, runtime: Runtime.new) }.message
    end
  end

  def test_the_rails_workload_and_a_users_app_are_refused_with_their_reason
    rails = refusal(Rackbench::Workload::App.resolve("rails"))
    assert_match(/only the built-in arena app runs on JRuby here \(the Rails workload's bundle is MRI's: its sqlite3 gem is a C extension/, rails)
    own = refusal(Rackbench::Workload::App.resolve(File.expand_path("../../fixtures/apps/cpu_and_sleep", __dir__)))
    assert_match(/\(your app's bundle is installed for MRI\); drop --app or the "on jruby" setups\z/, own)
  end
end
