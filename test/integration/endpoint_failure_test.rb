# frozen_string_literal: true

require "test_helper"
require "json"

# An endpoint that fails verification fails that endpoint, not the setup:
# the setup's other endpoints are measured. A redirect or a 4xx (the app's
# answer, the same under every server) found on one setup is not verified
# again by booting the others; a 5xx may be the server's and is checked on each.
class EndpointFailureTest < Minitest::Test
  APP = <<~RUBY
    run lambda { |env|
      case env["PATH_INFO"]
      when "/missing" then [404, { "content-type" => "text/html" }, ["<title>Not Found</title>"]]
      when "/boom" then [500, { "content-type" => "text/plain" }, ["boom"]]
      else [200, { "content-type" => "text/plain", "content-length" => "2" }, ["ok"]]
      end
    }
  RUBY

  def read_jsonl(dir, name)
    path = File.join(dir, name)
    File.exist?(path) ? File.readlines(path).map { |l| JSON.parse(l) } : []
  end

  def run_quick(app, *args)
    out = File.join(tmpdir, "run")
    status, stdout, err = run_cli("run", "--app", app, "-s", "puma x1:1", "-s", "thin", *args, "-c", "1", "-d", "1",
                                  "--warmup", "0", "--cooldown", "0", "-o", out)
    [status, out, stdout, err]
  end

  def test_a_404_fails_its_endpoint_once_and_the_others_are_measured
    app = File.join(tmpdir, "config.ru")
    File.write(app, APP)
    status, out, stdout, err = run_quick(app, "-e", "/", "-e", "/missing", "-e", "/boom")
    assert_equal 1, status, "an endpoint failed: the run says so by its exit status"

    trials = read_jsonl(out, "trials.jsonl")
    assert_equal [["puma x1:1", "/"], ["thin", "/"]], trials.map { |t| [t["setup"], t["endpoint"]] }.sort
    trials.each { |t| assert_operator t["requests"], :>, 0 }

    rows = read_jsonl(out, "setups.jsonl")
    assert_equal ["puma x1:1", "thin"], rows.select { |r| r["status"] == "ok" }.map { |r| r["setup"] }.sort, "both booted"
    missing = rows.select { |r| r["endpoint"] == "/missing" }
    assert_equal %w[failed skipped], missing.map { |r| r["status"] }, "found on the first setup, skipped on the other"
    first, other = missing.map { |r| r["setup"] }
    assert_equal "verification of /missing failed: status 404: Not Found", missing.first["reason"]
    assert_match(/\Anot verified again: on #{Regexp.escape(first)} it answered 404, the app's answer under every server/,
                 missing.last["reason"])
    missing.each { |r| assert_equal 1, r["trials_skipped"] }
    boom = rows.select { |r| r["endpoint"] == "/boom" }
    assert_equal [%w[failed puma], %w[failed thin]], boom.map { |r| [r["status"], r["server"]] }.sort, "a 500 is verified on each"

    warnings = read_jsonl(out, "warnings.jsonl").map { |w| w["text"] }.grep(%r{\A/missing})
    assert_equal ["/missing answered 404 on #{first}: skipped on the other setups (a redirect or a 4xx is the app's answer " \
                  "to the path, the same under every server); fix the path or drop --endpoint /missing"], warnings
    assert_includes stdout, "FAILED /missing on #{first} (repetition 1): verification of /missing failed: status 404"
    assert_includes stdout, "SKIPPED /missing on #{other}: not verified again"
    assert_equal 1, err.scan("answered 404").size, "said once"
  end

  # Every endpoint answers a redirect: the setup fails as before, and the
  # other setup is not booted just to fail the same way.
  def test_a_setup_whose_every_endpoint_redirects_is_not_booted_again
    status, out, stdout, = run_quick(File.expand_path("../fixtures/apps/redirect", __dir__))
    assert_equal 1, status
    rows = read_jsonl(out, "setups.jsonl")
    failed = rows.find { |r| r["status"] == "failed" }
    assert_match(%r{\Averification of / failed: status 301 redirects to https://}, failed["reason"])
    refute failed.key?("endpoint"), "the setup failed (none of its endpoints is left)"
    skipped = rows.reject { |r| r["setup"] == failed["setup"] }
    assert_equal [["/", "skipped"]], skipped.map { |r| [r["endpoint"], r["status"]] }, "the other setup never booted"
    assert_match(/FAILED #{Regexp.escape(failed['setup'])} \(repetition 1\): verification of/, stdout)
    assert_match(%r{SKIPPED / on #{Regexp.escape(skipped.first['setup'])}: not verified again: on #{Regexp.escape(failed['setup'])} it answered 301}, stdout)
    assert_empty read_jsonl(out, "trials.jsonl")
  end
end
