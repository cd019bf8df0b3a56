# frozen_string_literal: true

require "test_helper"
require "rackbench/server"
require "rackbench/plan/setup"

# Every server in the registry (Server.keys) has a contract case: a test
# class that includes ServerContract (test/support/server_contract.rb) and
# names a setup of that server (test/integration/server/servers_test.rb).
# The cases are read from the test sources, not loaded: loading them here
# would run the integration tests in the unit suite. A class that undefines
# the contract's tests (test/faults/arena_params_test.rb borrows its boot)
# is not a case.
class ServerContractCoverageTest < Minitest::Test
  TEST_ROOT = File.expand_path("../..", __dir__)
  CLASS = /^class (\w+) < Minitest::Test\n(.*?)^end\b/m
  LABEL = /def setup_label(?:\s*=\s*|\s*\n\s*)"([^"]+)"/

  # {server key => [setup labels]} of the contract cases in sources ({path => source}).
  def self.cases(sources = Dir["#{TEST_ROOT}/**/*_test.rb"].to_h { |f| [f, File.read(f)] })
    labels = sources.values.flat_map do |source|
      source.scan(CLASS).filter_map do |_name, body|
        next unless body.match?(/^\s*include ServerContract\b/) && !body.include?("undef_method")

        body[LABEL, 1]
      end
    end
    labels.group_by { |label| Rackbench::Setup.parse(label).server }
  end

  # The registered servers with no contract case.
  def self.uncovered(keys = Rackbench::Server.keys, cases = self.cases)
    keys - cases.keys
  end

  def test_every_registered_server_has_a_contract_case
    assert_operator Rackbench::Server.keys.size, :>=, 2, "the registry was read"
    assert_empty self.class.uncovered, "a server with no contract case: add a class including ServerContract with " \
                                       "its setup_label to test/integration/server/servers_test.rb (docs/architecture.md)"
  end

  def test_it_finds_the_cases_and_skips_a_class_that_undefines_them
    source = <<~RUBY
      class PumaClusterTest < Minitest::Test
        include ServerContract
        def setup_label = "puma x2:3"
      end

      class UnicornParamsTest < Minitest::Test
        include ServerContract

        def setup_label = "unicorn x2"

        ServerContract.instance_methods(false).grep(/\\Atest_/).each { |m| undef_method(m) }
      end
    RUBY
    cases = self.class.cases("x_test.rb" => source)
    assert_equal({ "puma" => ["puma x2:3"] }, cases)
    assert_equal ["unicorn"], self.class.uncovered(%w[puma unicorn], cases)
  end

  # The guard reads the registry: a server registered without a case fails it.
  def test_it_fails_for_a_registered_server_with_no_case
    before = self.class.uncovered
    dummy = Class.new(Rackbench::Server::Base)
    dummy.const_set(:KEY, "dummy")
    dummy.register(order: 99)
    assert_equal before + ["dummy"], self.class.uncovered
  ensure
    Rackbench::Server::ADAPTERS.delete("dummy")
  end
end
