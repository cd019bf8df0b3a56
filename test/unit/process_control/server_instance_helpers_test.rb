# frozen_string_literal: true

require "test_helper"
require "rackbench/server"
require "rackbench/process_control/server_instance"

# What outlived a server's stop: the server's own helpers (Passenger's
# agents, issue 34: reported as "left running by the app") told from the app's.
class ServerInstanceHelpersTest < Minitest::Test
  LEFT = ["4101 Passenger watchdog", "4102 PassengerAgent temp-dir-toucher /tmp/passenger-standalone.abc",
          "4103 /usr/lib/passenger/support-binaries/PassengerAgent core", "4104 rackbench-test-daemon"].freeze

  def apart(server)
    Rackbench::ProcessControl::ServerInstance.helpers_apart(LEFT, Rackbench::Server.adapter(server))
  end

  def test_passengers_own_agents_are_its_helpers_not_the_apps
    helpers, app = apart("passenger")
    assert_equal LEFT.first(3), helpers
    assert_equal ["4104 rackbench-test-daemon"], app
  end

  def test_a_server_without_helpers_leaves_everything_to_the_app
    assert_equal [[], LEFT], apart("puma")
  end
end
