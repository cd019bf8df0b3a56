# frozen_string_literal: true

require "test_helper"
require "json"
require "rbconfig"
require "rackbench/server"
require "rackbench/process_control/server_instance"
require "rackbench/plan/setup"
require "rackbench/ports"

# --url as users write it, against a real server this test boots (a tiny
# Rack app under "puma x1:2" that logs each request's path and query): the
# bare base and the base with a trailing slash load "/", a URL with a path
# and query loads exactly that path and query. rackbench runs as its own
# process, as a user runs it (in this process, run's final clean-up would
# also stop the server this test started).
class UrlIntegrationTest < Minitest::Test
  EXE = File.expand_path("../../exe/rackbench", __dir__)

  def rackbench(*argv)
    out, err, status = capture_with_timeout(RbConfig.ruby, EXE, *argv, timeout: 120)
    [status.exitstatus, out, err]
  end

  def app_logging_requests(log)
    dir = tmpdir
    File.write(File.join(dir, "config.ru"), <<~RUBY)
      log = File.open(#{log.inspect}, "a")
      log.sync = true
      run lambda { |env|
        target = env["PATH_INFO"] + (env["QUERY_STRING"].to_s.empty? ? "" : "?" + env["QUERY_STRING"])
        log.write(target + "\\n")
        [200, { "content-type" => "text/plain", "content-length" => "2" }, ["ok"]]
      }
    RUBY
    File.join(dir, "config.ru")
  end

  def with_server(log)
    instance = Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("puma"), setup: Rackbench::Setup.parse("puma x1:2"),
                                               app: app_logging_requests(log), port: Rackbench::Ports.free, dir: tmpdir)
    instance.start
    yield instance
  ensure
    instance&.stop
  end

  def test_base_trailing_slash_and_path_with_query
    log = File.join(tmpdir, "requests.log")
    with_server(log) do |server|
      base = "http://127.0.0.1:#{server.port}"
      { base => "/", "#{base}/" => "/", "#{base}/items/7?q=1&page=2" => "/items/7?q=1&page=2" }.each do |url, target|
        File.write(log, "")
        out = File.join(tmpdir, "run")
        status, stdout, err = rackbench("run", "--url", url, "-c", "2", "-d", "1", "--warmup", "0", "-q", "-o", out)
        assert_equal 0, status, "#{url}: #{err}"
        trials = File.readlines(File.join(out, "trials.jsonl")).map { |l| JSON.parse(l) }
        assert_equal [[base, target]], trials.map { |t| [t["setup"], t["endpoint"]] }, url
        assert_operator trials.first["requests"], :>, 50, "#{url}: a second of load on a trivial app"
        # Not exactly none: wrk 4.1 against Puma 8 now and then counts a read
        # error in a few thousand requests (see the engine contract).
        assert_operator trials.first["error_total"], :<=, trials.first["requests"] / 100, "#{url}: #{trials.first['errors']}"
        served = File.readlines(log, chomp: true).tally
        assert_equal [target], served.keys, "#{url}: every request (verification and load) went to #{target}"
        assert_operator served[target], :>=, trials.first["requests"], url
        assert_match(/^#{Regexp.escape(target)}\s/, stdout)
      end
    end
  end
end
