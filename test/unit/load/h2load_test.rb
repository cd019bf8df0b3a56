# frozen_string_literal: true

require "test_helper"
require "etc"
require "rackbench/load"
require "rackbench/plan/config"
require_relative "../../support/fake_program"

# The h2load engine's argv (rackbench's concurrency onto -c and -m), its
# registration, and the setups Config refuses it for. Real runs:
# test/integration/load/h2load_test.rb.
class H2loadTest < Minitest::Test
  include FakeProgram

  H2load = Rackbench::Load::H2load
  URL = "http://127.0.0.1:9/hello"

  def flag(argv, name)
    argv[argv.index(name) + 1]
  end

  def test_concurrency_is_connections_with_one_stream_each
    argv = H2load.new.command(url: URL, concurrency: 8, duration: 2)
    assert_equal "8", flag(argv, "-c")
    assert_equal "1", flag(argv, "-m")
    assert_equal [8, Etc.nprocessors, 2].min.to_s, flag(argv, "-t")
    assert_equal "2000ms", flag(argv, "-D")
    assert_equal "requests.tsv", flag(argv, "--log-file")
    assert_equal URL, argv.last
    refute_includes argv, "--h1"
    refute_includes argv, "-N", "h2load 1.52 aborts at the window's end after an inactivity timeout"
  end

  def test_streams_multiplex_the_same_requests_in_flight_on_fewer_connections
    argv = H2load.new(streams: 4).command(url: URL, concurrency: 8, duration: 1)
    assert_equal %w[2 4], [flag(argv, "-c"), flag(argv, "-m")]
    error = assert_raises(Rackbench::UsageError) { H2load.new(streams: 4).command(url: URL, concurrency: 6, duration: 1) }
    assert_equal "h2load streams per connection (4) must divide concurrency (6)", error.message
    assert_raises(Rackbench::UsageError) { H2load.new(streams: 0) }
  end

  def test_durations_in_milliseconds_and_threads_within_connections
    assert_equal "1500ms", flag(H2load.new.command(url: URL, concurrency: 1, duration: 1.5), "-D")
    assert_equal "1", flag(H2load.new.command(url: URL, concurrency: 1, duration: 1), "-t")
    assert_equal "3", flag(H2load.new.command(url: URL, concurrency: 4, duration: 1, threads: 3), "-t")
    error = assert_raises(Rackbench::UsageError) { H2load.new.command(url: URL, concurrency: 2, duration: 1, threads: 3) }
    assert_equal "h2load threads (3) must not exceed its connections (2)", error.message
    assert_raises(Rackbench::UsageError) { H2load.new.command(url: URL, concurrency: 2, duration: 0) }
  end

  def test_registration
    registration = Rackbench::Load.registration("h2load")
    assert_equal "closed", registration.loop
    assert_equal "h2load", registration.process
    assert_equal "h2c", Rackbench::Load.protocol("h2load")
    assert_equal "http/1.1", Rackbench::Load.protocol("wrk")
    assert_includes Rackbench::Load.programs, "h2load"
    assert_instance_of H2load, Rackbench::Load.engine("h2load")
  end

  def test_version_and_missing_program
    with_fake_program("h2load", "echo 'h2load nghttp2/1.52.0'") do |path, dir|
      engine = H2load.new(binary: path)
      assert_equal "1.52.0", engine.version
      error = assert_raises(Rackbench::Error) do
        H2load.new(binary: File.join(dir, "absent")).run(url: URL, concurrency: 1, duration: 1,
                                                         log_path: File.join(dir, "log"))
      end
      assert_equal H2load::NOT_FOUND, error.message
    end
  end

  # A program that exits non-zero is one line in its own words.
  def test_a_failed_run_is_one_line
    with_fake_program("h2load", "echo 'starting benchmark...'; echo '-c, -t: bad' >&2; exit 1") do |path, dir|
      error = assert_raises(Rackbench::Error) do
        H2load.new(binary: path).run(url: URL, concurrency: 1, duration: 1, log_path: File.join(dir, "log"))
      end
      assert_equal "h2load rejected its arguments: -c, -t: bad", error.message
    end
  end

  def config(**given)
    Rackbench::Config.build(engine: "h2load", **given)
  end

  def test_setups_that_cannot_serve_h2c_are_refused
    error = assert_raises(Rackbench::UsageError) { config(setups: ["puma x2:5"]) }
    assert_match(/\A--engine h2load speaks HTTP\/2 in cleartext \(h2c, prior knowledge\), which puma x2:5 cannot serve: /,
                 error.message)
    assert_match(/only (\w+, )*falcon(, \w+)* serves? h2c here; give .*-s "falcon x2".*, or use --engine wrk\z/, error.message)
    error = assert_raises(Rackbench::UsageError) { config(setups: ["falcon x2 behind nginx", "falcon x2"]) }
    assert_match(/which falcon x2 behind nginx cannot serve: only (\w+, )*falcon(, \w+)* serves? h2c here with nothing in front/, error.message)
    %w[unicorn thin passenger pitchfork iodine agoo].select { |k| Rackbench::Server::ADAPTERS[k] }.each do |server|
      assert_raises(Rackbench::UsageError, server) { config(setups: ["#{server} x2"]) }
    end
  end

  def test_falcon_and_a_given_url_are_taken
    assert_equal ["falcon x2"], config(setups: ["falcon x2"])[:setups].map(&:label)
    assert_equal "h2load", config(url: "http://127.0.0.1:9")[:engine]
  end

  def test_rate_is_refused_saying_why
    error = assert_raises(Rackbench::UsageError) { config(setups: ["falcon x2"], rate: [100]) }
    assert_match(/\A--engine h2load is closed-loop and takes --concurrency, not --rate: h2load's --rps times a request /,
                 error.message)
    assert_match(/coordinated omission\); use --engine wrk-open for --rate\z/, error.message)
  end
end
