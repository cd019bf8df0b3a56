# frozen_string_literal: true

require "test_helper"
require "json"

# /network-io in a real run: rackbench starts the upstream stub with
# --upstream-delay and --upstream-bytes, the arena calls it on every request,
# verification checks the body size, and the stub stops with the run.
# 2 connections on "puma x1:4", each request waiting 0.2 s on the stub:
# 2 / 0.2 = 10 req/s, each taking just over 200 ms.
class NetworkIoIntegrationTest < Minitest::Test
  def test_the_upstream_stub_serves_a_real_network_io_run
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "-s", "puma x1:4", "-e", "/network-io", "--upstream-delay", "0.2",
                                "--upstream-bytes", "3000", "-c", "2", "-d", "2", "--warmup", "0", "-q", "-o", dir)
    assert_equal 0, status, err
    trial = JSON.parse(File.readlines(File.join(dir, "trials.jsonl")).first)
    figures = "#{trial['rps']} req/s, latency #{trial['latency_ms']}"
    assert trial["verified"], "verification checked the stub's 3000-byte body"
    assert_equal 0, trial["error_total"], trial["errors"].to_s
    assert_in_delta 10.0, trial["rps"], 2.5, figures
    assert_operator trial.dig("latency_ms", "p50"), :>=, 200.0, "each request waits out the stub's delay: #{figures}"
    assert_operator trial.dig("latency_ms", "p50"), :<, 260.0, figures
    assert_includes File.read(File.join(dir, "logs", "upstream.log")), "listening"
  end

  # The stub on its own: the body size it is given, on 127.0.0.1.
  def test_the_stub_answers_with_the_body_size_it_was_given
    require "rackbench/workload/upstream_stub"
    require "rackbench/process_control/http_probe"
    stub = Rackbench::Workload::UpstreamStub.new(delay: 0, bytes: 1234, log_dir: tmpdir).start
    res = Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", stub.port, "/", timeout: 5)
    assert_equal [200, 1234], [res.status, res.body.bytesize]
  ensure
    stub&.stop
  end
end
