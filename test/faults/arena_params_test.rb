# frozen_string_literal: true

require_relative "fault_helper"
require "support/server_contract"

# Bad parameters to the arena app: a 400 with a message; the server unharmed.
class FaultArenaParamsTest < Minitest::Test
  include ServerContract

  def setup_label = "puma x1:2"

  def test_bad_parameters_get_400_and_the_server_serves_on
    instance = boot
    pid = JSON.parse(Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/server").body)["pid"]
    %w[/fibonacci/-1 /fibonacci/99999 /pause/abc /pi/0].each do |path|
      res = Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, path)
      assert_equal 400, res.status, path
      refute_empty res.body.strip, "#{path} says what is accepted"
    end
    after = Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/server")
    assert_equal 200, after.status
    assert_equal pid, JSON.parse(after.body)["pid"], "same process: nothing crashed"
  ensure
    instance&.stop
  end

  # The contract's own tests are run by test/integration; here only this case.
  ServerContract.instance_methods(false).grep(/\Atest_/).each { |m| undef_method(m) }
end
