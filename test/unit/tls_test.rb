# frozen_string_literal: true

require "test_helper"
require "socket"
require "rackbench/tls"
require "rackbench/plan/config"
require "rackbench/process_control/http_probe"
require "rackbench/report/protocol_note"

# --tls: the run's certificate, what Config refuses, the probes' handshake,
# and the line the reports print.
class TlsTest < Minitest::Test
  def test_the_run_certificate_names_the_local_addresses_and_stays_in_the_run_directory
    run = tmpdir
    cert = Rackbench::Tls.for_run(run, bind: "10.1.2.3")
    assert_equal File.join(run, "tls", "cert.pem"), cert.cert_path
    x509 = OpenSSL::X509::Certificate.new(File.read(cert.cert_path))
    san = x509.extensions.find { |e| e.oid == "subjectAltName" }.value
    assert_equal "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:10.1.2.3", san
    assert_equal 0o600, File.stat(cert.key_path).mode & 0o777, "the key readable by its owner alone"
    assert_match(/\A-----BEGIN PRIVATE KEY-----/, File.read(cert.key_path), "PKCS#8, as Itsi's rustls needs")
    assert x509.verify(OpenSSL::PKey.read(File.read(cert.key_path))), "self-signed with the key beside it"
    before = File.read(cert.cert_path)
    assert_equal before, File.read(Rackbench::Tls.for_run(run).cert_path), "a resumed run keeps its certificate"
    assert_equal %w[cert.pem key.pem], Dir.children(File.join(run, "tls")).sort
  end

  def build(*setups, **more)
    Rackbench::Config.build({ setups: setups, tls: true }.merge(more))
  end

  def test_config_refuses_setups_that_cannot_serve_tls_together_with_their_reasons
    assert build("puma x2:5", "thin", "falcon x2", "itsi x2:2", "iodine x2:2", "agoo x2:2", "unicorn x2 behind nginx")
    e = assert_raises(Rackbench::UsageError) { build("puma x2:5", "unicorn x2", "pitchfork x2", "passenger x2") }
    assert_match(/\A--tls: unicorn x2: Unicorn serves no TLS .*; nginx in front serves TLS for it: -s "unicorn x2 behind nginx"; /, e.message)
    assert_match(/pitchfork x2: Pitchfork serves no TLS/, e.message)
    assert_match(/passenger x2: the builtin engine of Passenger Standalone, which rackbench runs, serves no TLS/, e.message)
    refute_match(/puma x2:5:/, e.message)
    assert_match(/Puma on JRuby takes its certificate from a Java keystore/,
                 assert_raises(Rackbench::UsageError) { build("puma x1:4 on jruby") }.message)
    assert_match(/the server at --url is your own: drop --tls and give its https:\/\/ URL/,
                 assert_raises(Rackbench::UsageError) { build(url: "http://127.0.0.1:9/") }.message)
    refute Rackbench::Config.build(setups: ["unicorn x2"])[:tls], "off by default"
  end

  # A server answering plain HTTP where TLS was asked for: named, never silence.
  def test_a_plain_http_answer_to_a_tls_probe_is_a_named_handshake_failure
    server = TCPServer.new("127.0.0.1", 0)
    thread = Thread.new do
      client = server.accept
      client.readpartial(4096)
      client.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
      client.close
    rescue IOError, SystemCallError
      nil
    end
    res = Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", server.addr[1], "/", timeout: 2,
                                                   tls: Rackbench::Tls.for_run(tmpdir))
    refute_nil res
    assert_match(/wrong version number|record layer failure|packet length too long|unexpected eof/i, res.handshake)
    assert_match(/\Aa failed TLS handshake/, res.invalid)
  ensure
    server&.close
    thread&.join(2)
  end

  def trial(setup, tls: nil, protocol: nil)
    { "setup" => setup, "tls" => tls, "protocol" => protocol }.compact
  end

  def test_the_protocol_line
    assert_nil Rackbench::Report::ProtocolNote.line([trial("puma x2:5")])
    assert_equal "Served over h2c in cleartext (prior knowledge, no TLS).",
                 Rackbench::Report::ProtocolNote.line([trial("itsi x2:5", protocol: "h2c")])
    tls = { "version" => "TLSv1.3", "cipher" => "TLS_AES_256_GCM_SHA384", "certificate" => "run", "from" => "verification" }
    assert_equal "Served over HTTPS (http/1.1 over TLSv1.3, as the verification's handshake agreed) with a certificate made for this run; " \
                 "behind nginx, nginx ends TLS and the server gets plain HTTP.",
                 Rackbench::Report::ProtocolNote.line([trial("puma x2:5", tls: tls, protocol: "http/1.1"),
                                                       trial("unicorn x2 behind nginx", tls: tls, protocol: "http/1.1")])
    h2 = tls.merge("cipher" => "TLS_AES_128_GCM_SHA256", "from" => "load engine")
    assert_equal "Served over HTTPS (h2 over TLSv1.3 TLS_AES_128_GCM_SHA256) with a certificate made for this run.",
                 Rackbench::Report::ProtocolNote.line([trial("itsi x2:5", tls: h2, protocol: "h2")])
    theirs = tls.merge("certificate" => "server")
    assert_match(/with the server's own certificate \(not checked\)\.\z/,
                 Rackbench::Report::ProtocolNote.line([trial("https://127.0.0.1:9", tls: theirs, protocol: "http/1.1")]))
  end
end

# --tls with no --setup: the default plan's servers that serve no TLS of
# their own are left out and named.
class TlsDefaultPlanTest < Minitest::Test
  def test_servers_without_tls_are_left_out_of_the_default_plan_with_their_reason
    require "rackbench/plan/server_check"
    keys, warning = Rackbench::ServerCheck.tls_only(%w[puma unicorn thin passenger falcon pitchfork], nil)
    assert_equal %w[puma thin falcon], keys
    assert_equal "left out for --tls: unicorn (Unicorn serves no TLS), passenger (the builtin engine of Passenger " \
                 "Standalone, which rackbench runs, serves no TLS), pitchfork (Pitchfork serves no TLS)", warning
    assert_raises(Rackbench::UsageError) { Rackbench::ServerCheck.tls_only(%w[unicorn], nil) }
  end
end
