# frozen_string_literal: true

require "test_helper"
require "rackbench/search/client_bound"

# A level the load generator could not hold: measured again with fewer
# connections, never below the 10 ms rule (WrkOpenLoop.connections_for).
class ClientBoundTest < Minitest::Test
  CB = Rackbench::Search::ClientBound

  def test_half_the_connections_down_to_the_rule
    assert_equal 15, CB.fewer_connections({ "connections" => 30, "target_rate" => 293.7 })
    assert_equal 3, CB.fewer_connections({ "connections" => 4, "target_rate" => 293.7 }), "293.7 req/s x 10 ms: 3 at least"
    assert_nil CB.fewer_connections({ "connections" => 3, "target_rate" => 293.7 }), "nothing left to take away"
    assert_nil CB.fewer_connections({ "connections" => 1, "target_rate" => 36.7 })
  end

  def test_the_note_says_the_machine_not_the_server
    assert_match(/\Athe load generator could not hold 147 req\/s on this machine .*: the machine bounded the search there, so the server may take more; .*--cpus/,
                 CB.note(146.9))
  end
end
