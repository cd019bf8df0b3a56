# frozen_string_literal: true

require "test_helper"

# `require "rackbench"` in a fresh Ruby loads every stage (lib/rackbench.rb),
# with every server and engine registered. The servers expected are the
# registry's (every adapter file of server/, loaded here by server.rb), so a
# new server is not also a line here (test/unit/server/contract_coverage_test.rb
# asks each for its contract case).
class FacadeTest < Minitest::Test
  def test_require_rackbench_loads_the_pipeline
    require "rackbench/server"
    servers = Rackbench::Server.keys
    assert_includes servers, "puma"
    code = 'require "rackbench"; puts [Rackbench::Server.keys.join(","), Rackbench::Load.names.join(","), ' \
           'Rackbench::Server.on_runtime("jruby").join(","), ' \
           "Rackbench::Plan, Rackbench::Runner, Rackbench::Store::RunDir, Rackbench::Search::Tune, Rackbench::CLI].join(' ')"
    out = IO.popen([RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__), "-e", code], err: %i[child out], &:read)
    assert_equal "#{servers.join(',')} wrk,wrk-open,ab,siege,siege-close,h2load,fake puma " \
                 "Rackbench::Plan Rackbench::Runner Rackbench::Store::RunDir Rackbench::Search::Tune Rackbench::CLI\n", out
  end
end
