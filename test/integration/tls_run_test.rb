# frozen_string_literal: true

require "test_helper"
require "json"

# --tls on real servers: every server that serves TLS of its own, and one
# that does not behind nginx, answer wrk over HTTPS with the run's
# certificate, which the verification's handshake checks; nothing is
# written outside the run directory (Falcon's localhost gem store included).
class TlsRunTest < Minitest::Test
  SETUPS = ["puma x2:2", "thin", "falcon x2", "itsi x2:2", "iodine x2:2", "agoo x2:2", "unicorn x2 behind nginx"].freeze

  def localhost_store
    File.expand_path("localhost.rb", ENV.fetch("XDG_STATE_HOME", "~/.local/state"))
  end

  # Puma 8 ends a keep-alive connection after 999 requests (`max_keep_alive`,
  # answering "Connection: close"); over TLS wrk reads about one such close in
  # twenty as a read error (measured here: 1 read error in 2 of 6 one-second
  # runs of puma x2:2 at about 20,000 requests; 0 over plain HTTP in 6). So a
  # Puma trial may have at most one read error per connection Puma closed;
  # every other server, and every other kind of error, must be 0.
  def keepalive_closes(trial)
    trial["setup"].start_with?("puma") ? trial["requests"] / 999 : 0
  end

  def test_every_tls_server_and_nginx_in_front_serve_https_with_the_run_certificate
    require_tool!("wrk")
    require_tool!("nginx", system("nginx -v", err: File::NULL))
    store_before = Dir.exist?(localhost_store) ? Dir.children(localhost_store).sort : nil
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "--tls", *SETUPS.flat_map { |s| ["-s", s] }, "-e", "/hello", "-c", "2", "-d", "1",
                               "--warmup", "0", "-o", dir)
    assert_equal 0, status, err
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal SETUPS.sort, trials.map { |t| t["setup"] }.sort
    trials.each do |t|
      assert_match(/\ATLSv1\.[23]\z/, t.dig("tls", "version"), t["setup"])
      assert_equal ["run", "http/1.1"], [t.dig("tls", "certificate"), t["protocol"]], t["setup"]
      assert_equal 0, t["error_total"] - t.dig("errors", "read").clamp(0, keepalive_closes(t)), "#{t['setup']}: #{t['errors']}"
      assert_match(%r{"https://127\.0\.0\.1:\d+/hello"}, t["command"].to_s, "#{t['setup']}: wrk loaded https://")
      assert_operator t["requests"], :>, 20, t["setup"]
    end
    assert File.exist?(File.join(dir, "tls", "cert.pem"))
    falcon = File.join(dir, "logs", "falcon_x2-r1", "tls-state", "localhost.rb", "localhost.crt")
    assert_equal File.read(File.join(dir, "tls", "cert.pem")), File.read(falcon), "Falcon's store holds the run's certificate"
    store_after = Dir.exist?(localhost_store) ? Dir.children(localhost_store).sort : nil
    assert(store_before == store_after, "nothing written to the localhost gem's store in the home directory: #{store_after.inspect}")
    assert_match(/^Served over HTTPS \(http\/1\.1 over TLSv1\.3, as the verification's handshake agreed\) with a certificate made for this run; behind nginx, nginx ends TLS/, out)
  end

  # HTTP/2 over TLS: h2load offers h2 by ALPN; Falcon and Itsi take it.
  def test_h2load_over_tls_speaks_h2_to_falcon_and_itsi
    require_tool!("h2load")
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "--tls", "--engine", "h2load", "-s", "itsi x2:2", "-s", "falcon x2", "-e", "/hello",
                               "-c", "4", "-d", "1", "--warmup", "0", "-o", dir)
    assert_equal 0, status, err
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal ["falcon x2", "itsi x2:2"], trials.map { |t| t["setup"] }.sort
    trials.each do |t|
      assert_equal ["h2", "load engine", "run"], [t["protocol"], t.dig("tls", "from"), t.dig("tls", "certificate")], t["setup"]
      assert_match(/\ATLSv1\.3\z/, t.dig("tls", "version"))
      assert_includes t["command"], "https://127.0.0.1:#{t['command'].last[/:(\d+)\//, 1]}/hello"
      assert_operator t["requests"], :>, 20, t["setup"]
    end
    assert_match(/^Served over HTTPS \(h2 over TLSv1\.3 TLS_\w+\) with a certificate made for this run\.$/, out)
  end
end
