# frozen_string_literal: true

require "test_helper"
require "rackbench/server"

# The registry's lists come from the adapters' own registrations.
class ServerRegistryTest < Minitest::Test
  # tune's default servers (--servers) are those registered with
  # tune_default: true, in their order; a subclass does not inherit it
  # (Pitchfork is Unicorn's).
  def test_tune_defaults_come_from_the_registrations
    assert_equal %w[puma unicorn], Rackbench::Server.tune_defaults
    refute_predicate Rackbench::Server::Pitchfork, :tune_default?
    require "rackbench/cli/options"
    assert_equal "puma,unicorn", Rackbench::CLI::Options::DECLARED.fetch(:servers).default
  end
end
