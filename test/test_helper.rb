# frozen_string_literal: true

require "minitest/autorun"
require "tmpdir"
require "stringio"
require "rackbench/error"
require "rackbench/suggest"
require "rackbench/process_control/registry"
require_relative "support/leak_check"
require_relative "support/waits"

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

    # A test that needs an external tool (wrk, ab, siege, luajit, chromium,
    # nginx, passenger): skipped where the tool is missing on a developer's
    # machine, failed in CI (ENV["CI"], set by .ci/run), where bin/setup has
    # installed everything and a skip would hide a broken setup.
    # found: whether the tool is there (default: NAME is on PATH).
    def require_tool!(name, found = TestHelpers.on_path?(name))
      return if found

      message = "#{name} is not installed (bin/setup installs it)"
      flunk "#{message}; in CI every tool must be there" if ENV["CI"]
      skip message
    end

    # In CI no test may skip: a skip there fails the test instead, so the run
    # ends with zero skips or fails.
    def skip(message = nil, location = caller_locations(1, 1).first)
      flunk "skipped in CI: #{message}" if ENV["CI"]
      super
    end

    # A measurement whose check needs a quiet machine: taken again (at most
    # `attempts` times in all) while a trial it returns says other processes
    # used more than the limit (Sampling::Noise.foreign?), as a user would
    # measure again; the last one is returned whatever it says, so the check
    # (or its skip, a failure in CI) still decides. The block returns a
    # trial record, a list of them (other values ignored), or a Hash of them.
    def quiet_measurement(attempts: 3)
      require "rackbench/sampling/noise"
      result = nil
      attempts.times do
        result = yield
        records = [result].flatten.flat_map { |r| r.is_a?(Hash) && !r.key?("machine") ? r.values : [r] }
        break unless records.any? { |r| r.is_a?(Hash) && Rackbench::Sampling::Noise.foreign?(r) }
      end
      result
    end

    def self.on_path?(name)
      ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).any? { |dir| File.executable?(File.join(dir, name)) }
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
Minitest::Test.include(Rackbench::Waits)
Rackbench::LeakCheck.install
