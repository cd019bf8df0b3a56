# frozen_string_literal: true

require "minitest/autorun"
require "tmpdir"
require "stringio"
require "rackbench/error"
require "rackbench/suggest"
require "rackbench/process/registry"
require_relative "support/leak_check"

module Rackbench
  # Helpers shared by tests.
  module TestHelpers
    def run_cli(*argv, env: {})
      require "rackbench/cli"
      out = StringIO.new
      err = StringIO.new
      status = Rackbench::CLI.call(argv.flatten.map(&:to_s), out: out, err: err, env: ENV.to_h.merge(env))
      [status, out.string, err.string]
    end

    def tmpdir
      @tmpdirs ||= []
      Dir.mktmpdir("rackbench-test").tap { |d| @tmpdirs << d }
    end

    def teardown
      super
      (@tmpdirs || []).each { |d| FileUtils.rm_rf(d) }
    end
  end
end

Minitest::Test.include(Rackbench::TestHelpers)
Rackbench::LeakCheck.install
