# frozen_string_literal: true

require "test_helper"
require "rbconfig"
require "socket"
require "tmpdir"
require "rackbench/load/wrk"
require "rackbench/process_control/child"
require "rackbench/clock"
require "rackbench/ports"
require_relative "../../support/engine_contract"

# Real wrk, for about a second per run, against Puma serving
# test/fixtures/wrk/app.ru on 127.0.0.1 (a free port). Every server is
# started through ProcessControl::Child and stopped in ensure.
class WrkIntegrationTest < Minitest::Test
  include EngineContract

  APP = File.expand_path("../../fixtures/wrk/app.ru", __dir__)
  BOOT_TIMEOUT_S = 20

  def setup
    require_tool!("wrk", engine.available?)
  end

  def engine
    @engine ||= Rackbench::Load::Wrk.new
  end

  attr_reader :url

  def around_contract_run
    with_server do |base|
      @url = "#{base}/"
      yield
    end
  end

  def test_non_2xx_responses_are_counted_as_status_errors
    result = with_server { |base| run_wrk("#{base}/status/503", duration: 0.5) }
    assert_operator result.requests, :>, 0
    assert_equal result.requests, result.errors["status"]
    assert_equal "1s", result.command[result.command.index("-d") + 1], "0.5 s rounds up to wrk's 1s"
    assert_operator result.duration_s, :>=, 0.9
  end

  def test_refused_connection_raises_wrks_reason
    url = "http://127.0.0.1:#{free_port}/"
    error = assert_raises(Rackbench::Error) { run_wrk(url) }
    assert_equal "wrk could not connect to #{url}: Connection refused; is the server listening?", error.message
  end

  private

  def run_wrk(url, duration: 1)
    Dir.mktmpdir do |dir|
      engine.run(url: url, concurrency: 2, duration: duration, log_path: File.join(dir, "wrk.log"))
    end
  end

  # Yields "http://127.0.0.1:PORT" while Puma serves APP there.
  def with_server
    Dir.mktmpdir do |dir|
      port = free_port
      log_path = File.join(dir, "puma.log")
      server = Rackbench::ProcessControl::Child.spawn(puma_argv(port), log_path: log_path)
      begin
        wait_until_listening(server, port, log_path)
        yield "http://127.0.0.1:#{port}"
      ensure
        server.stop("TERM", timeout: 10)
      end
    end
  end

  def puma_argv(port)
    [RbConfig.ruby, Gem.bin_path("puma", "puma"), "-b", "tcp://127.0.0.1:#{port}", "-t", "4:4",
     "-e", "production", "-s", APP]
  end

  def wait_until_listening(server, port, log_path)
    deadline = Rackbench::Clock.now + BOOT_TIMEOUT_S
    until listening?(port)
      flunk "puma exited before listening:\n#{File.read(log_path)}" unless server.alive?
      flunk "puma not listening after #{BOOT_TIMEOUT_S} s:\n#{File.read(log_path)}" if Rackbench::Clock.now > deadline
      sleep 0.05
    end
  end

  def listening?(port)
    TCPSocket.new("127.0.0.1", port).close
    true
  rescue Errno::ECONNREFUSED
    false
  end

  # A port nothing listens on right now (the kernel picks it; tiny race).
  def free_port
    Rackbench::Ports.free
  end
end
