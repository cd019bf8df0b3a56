# frozen_string_literal: true

require "minitest/autorun"
require "minitest/mock"
require "json"
require "rack"
require_relative "../../../lib/rackbench/workload/upstream"
require_relative "../../../lib/rackbench/workload/arena"

# The arena app through its real config.ru, wrapped in Rack::Lint so every
# response is also checked against the Rack 3 SPEC.
class ArenaTest < Minitest::Test
  CONFIG_RU = File.expand_path("../../../apps/arena/config.ru", __dir__)
  APP = Rack::Lint.new(Rack::Builder.parse_file(CONFIG_RU))
  Arena = Rackbench::Workload::Arena
  ITEM = /<li class="item[ "]/

  def request(path, method: "GET", env: {})
    Rack::MockRequest.new(APP).request(method, path, env)
  end

  def assert_content_length(response)
    assert_equal response.body.bytesize.to_s, response.headers["content-length"]
    refute_nil response.headers["content-type"]
  end

  def assert_bad_request(path, accepted)
    response = request(path)
    assert_equal 400, response.status, path
    assert_includes response.body, accepted
    assert_equal 1, response.body.lines.size
    assert_content_length(response)
  end

  def with_env(values)
    saved = values.keys.to_h { |key| [key, ENV.fetch(key, nil)] }
    values.each { |key, value| ENV[key] = value }
    yield
  ensure
    saved.each { |key, value| ENV[key] = value }
  end

  def with_upstream(bytes:)
    upstream = Rackbench::Workload::Upstream.new(port: 0, delay: 0.0, bytes: bytes)
    server = upstream.listen
    thread = Thread.new { upstream.accept_loop(server) }
    with_env("RACKBENCH_UPSTREAM_URL" => "http://127.0.0.1:#{server.addr[1]}/") { yield }
  ensure
    server&.close
    thread&.join(2)
  end

  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  def test_hello_and_health
    assert_equal "Hello, world!\n", request("/hello").body
    assert_equal "ok\n", request("/health").body
    assert_equal "text/plain; charset=utf-8", request("/health").headers["content-type"]
  end

  def test_fibonacci_computes_the_value
    response = request("/fibonacci/25")
    json = JSON.parse(response.body)
    assert_equal "application/json", response.headers["content-type"]
    assert_equal({ "n" => 25, "value" => 75_025 }, json.slice("n", "value"))
    assert_kind_of Numeric, json["ms"]
    assert_equal 0, JSON.parse(request("/fibonacci/0").body)["value"]
  end

  def test_fibonacci_rejects_bad_n
    %w[/fibonacci/-1 /fibonacci/99999 /fibonacci/abc /fibonacci/41 /fibonacci/2.5 /fibonacci/].each do |path|
      assert_bad_request(path, "n must be an integer from 0 to 40")
    end
  end

  def test_pi_digits
    body = request("/pi/5000").body
    assert body.start_with?("3.14159265358979"), body[0, 20]
    assert_equal 5002, body.bytesize
    assert_equal "3.1", request("/pi/1").body
    assert body.end_with?("4132604721") # digits 4991-5000 of pi
  end

  def test_pi_rejects_bad_digits
    %w[/pi/0 /pi/20001 /pi/abc].each { |path| assert_bad_request(path, "digits must be an integer from 1 to 20000") }
  end

  def test_template_render_has_every_item
    response = request("/template-render")
    assert_equal "text/html; charset=utf-8", response.headers["content-type"]
    assert_equal 400, response.body.scan(ITEM).size
    assert_includes response.body, "<p>400 products,"
    assert_equal response.body, request("/template-render").body, "output must be deterministic"
  end

  def test_pause_sleeps
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    response = request("/pause/0.05")
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :>=, 0.05
    assert_equal({ "slept" => 0.05 }, JSON.parse(response.body))
    assert_equal({ "slept" => 0.0 }, JSON.parse(request("/pause/0").body))
  end

  def test_pause_rejects_bad_seconds
    %w[/pause/abc /pause/-1 /pause/61 /pause/nan /pause/1e2 /pause-and-render/abc].each do |path|
      assert_bad_request(path, "seconds must be a number of seconds from 0.0 to 60.0")
    end
  end

  def test_pause_and_render
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    response = request("/pause-and-render/0.02")
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :>=, 0.02
    assert_equal 400, response.body.scan(ITEM).size
  end

  def test_network_io_without_upstream_is_503
    with_env("RACKBENCH_UPSTREAM_URL" => nil) do
      response = request("/network-io")
      assert_equal 503, response.status
      assert_includes response.body, "rackbench starts the upstream stub"
      assert_content_length(response)
    end
  end

  def test_network_io_with_unreachable_upstream_is_502
    with_env("RACKBENCH_UPSTREAM_URL" => "http://127.0.0.1:#{free_port}/") do
      response = request("/network-io-and-render")
      assert_equal 502, response.status
      assert_includes response.body, "ECONNREFUSED"
    end
  end

  def test_network_io_fetches_from_the_stub
    with_upstream(bytes: 3000) do
      json = JSON.parse(request("/network-io").body)
      assert_equal 3000, json["bytes"]
      assert_equal 200, json["status"]
      assert_kind_of Numeric, json["ms"]

      body = request("/network-io-and-render").body
      assert_equal 400, body.scan(ITEM).size
      assert_includes body, "<h2>alpha foxtrot kilo</h2>" # a name built from the stub's words
    end
  end

  def test_server_reports_process_and_honours_rackbench_server
    with_env("RACKBENCH_SERVER" => "thin") do
      json = JSON.parse(request("/server").body)
      assert_equal "thin", json["server"]
      assert_equal Process.pid, json["pid"]
      assert_equal RUBY_DESCRIPTION, json["ruby"]
      assert_includes [true, false], json["yjit"]
      assert_equal "HTTP/1.1", json["env"]["SERVER_PROTOCOL"]
    end
    with_env("RACKBENCH_SERVER" => nil) do
      assert_includes %w[puma unicorn thin passenger falcon pitchfork unknown], Arena::ServerInfo.name
    end
  end

  def test_random_picks_by_the_seed_proportions
    assert_equal %w[server server pause pause pi pi], [0.0, 0.4999, 0.5, 0.6999, 0.7, 0.9999].map { |r| Arena::RandomMix.pick(r) }
  end

  def test_random_answers_each_kind
    Random.stub(:rand, 0.1) { assert_equal Process.pid, JSON.parse(random_as("server").body)["pid"] }
    Random.stub(:rand, 0.9) { assert random_as("pi").body.start_with?("3.14159265358979") }
    naps = []
    Arena::Pause.stub(:nap, ->(seconds) { naps << seconds }) do
      Random.stub(:rand, 0.6) { assert_equal({ "slept" => 1.0 }, JSON.parse(random_as("pause").body)) }
      assert_includes %w[server pause pi], request("/random").headers["x-arena-mix"]
    end
    assert_equal 1.0, naps.first
  end

  def random_as(kind)
    response = request("/random")
    assert_equal kind, response.headers["x-arena-mix"]
    assert_content_length(response)
    response
  end

  def test_every_endpoint_sets_content_length
    paths = %w[/hello /health /fibonacci/20 /fibonacci/abc /template-render /pause/0.01 /pause-and-render/0.01
               /network-io /network-io-and-render /pi/100 /pi/abc /server /nope /hello/extra /fibonacci]
    Arena::Pause.stub(:nap, nil) do
      with_env("RACKBENCH_UPSTREAM_URL" => nil) { paths.each { |path| assert_content_length(request(path)) } }
      Random.stub(:rand, 0.6) { assert_content_length(request("/random")) }
    end
  end

  def test_unknown_paths_are_404
    %w[/ /nope /hello/extra /fibonacci /pi /template-render/1].each do |path|
      response = request(path)
      assert_equal 404, response.status, path
      assert_includes response.body, "no arena endpoint"
    end
  end

  def test_other_methods_are_405
    response = request("/hello", method: "POST")
    assert_equal 405, response.status
    assert_equal "GET, HEAD", response.headers["allow"]
    assert_includes response.body, "accepts GET and HEAD"
  end

  def test_head_keeps_headers_and_drops_body
    response = request("/hello", method: "HEAD")
    assert_equal 200, response.status
    assert_equal "", response.body
    assert_equal "14", response.headers["content-length"]
  end

  # The catalogue rackbench checks endpoints against before a server boots
  # is the router's: the same names, a parameter where the route takes one,
  # and every catalogue entry (with a parameter filled in) is served.
  def test_the_catalogue_is_the_routers
    routes = Arena::App::ROUTES.to_h { |name, route| [name, route.param] }
    catalogue = Arena::CATALOGUE.to_h { |e| [e.split("/")[1], e.count("/") == 2] }
    assert_equal routes, catalogue
    examples = { ":n" => "20", ":seconds" => "0.01", ":digits" => "10" }
    Arena::CATALOGUE.each do |entry|
      path = entry.sub(/:\w+/) { |param| examples.fetch(param) }
      assert Arena.serves?(path), path
      with_env("RACKBENCH_UPSTREAM_URL" => nil) do
        refute_equal 404, request(path).status, "#{path} is routed" unless path.start_with?("/network-io")
      end
    end
  end
end
