# frozen_string_literal: true

require "test_helper"

# `require "rackbench"` in a fresh Ruby loads every stage (lib/rackbench.rb),
# with every server and engine registered.
class FacadeTest < Minitest::Test
  def test_require_rackbench_loads_the_pipeline
    code = 'require "rackbench"; puts [Rackbench::Server.keys.join(","), Rackbench::Load.names.join(","), ' \
           'Rackbench::Server.on_runtime("jruby").join(","), ' \
           "Rackbench::Plan, Rackbench::Runner, Rackbench::Store::RunDir, Rackbench::Search::Tune, Rackbench::CLI].join(' ')"
    out = IO.popen([RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__), "-e", code], err: %i[child out], &:read)
    assert_equal "puma,unicorn,thin,passenger,falcon,pitchfork,itsi,iodine,agoo wrk,wrk-open,ab,siege,siege-close,h2load,fake puma " \
                 "Rackbench::Plan Rackbench::Runner Rackbench::Store::RunDir Rackbench::Search::Tune Rackbench::CLI\n", out
  end
end
