# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/config"

class ConfigTest < Minitest::Test
  def build(*layers)
    Rackbench::Config.build(*layers)
  end

  def test_defaults_are_frozen_and_valid
    cfg = build
    assert cfg.frozen?
    assert_equal [1, 8], cfg[:concurrency]
    assert_in_delta 2.0, cfg[:duration]
    assert_in_delta 0.0, cfg[:cooldown]
  end

  def test_command_line_overrides_plan_file
    cfg = build({ duration: 5, concurrency: [2] }, { duration: "3" })
    assert_in_delta 3.0, cfg[:duration]
    assert_equal [2], cfg[:concurrency]
  end

  def test_parses_setups_and_endpoints
    cfg = build({ setups: ["puma x2:5"], endpoints: ["/hello"] })
    assert_equal "puma", cfg[:setups].first.server
    assert_equal ["/hello"], cfg[:endpoints]
  end

  def test_bad_values_name_the_option_and_what_is_accepted
    assert_match(/--duration must be a number of seconds >= 0.5 \(got "-1"\)/,
                 assert_raises(Rackbench::UsageError) { build({ duration: "-1" }) }.message)
    assert_match(/--concurrency must be a whole number from 1 to 10000 \(got "0"\)/,
                 assert_raises(Rackbench::UsageError) { build({ concurrency: ["0"] }) }.message)
    assert_match(/--repeat must be a whole number/, assert_raises(Rackbench::UsageError) { build({ repeat: "two" }) }.message)
    assert_match(/endpoint "hello" must be a path/, assert_raises(Rackbench::UsageError) { build({ endpoints: ["hello"] }) }.message)
    assert_match(/--duration must be/, assert_raises(Rackbench::UsageError) { build({ duration: [1] }) }.message)
  end

  def test_expect_status_is_a_list_of_answer_statuses
    assert_nil build[:expect_status]
    assert_equal [301], build({ expect_status: "301" })[:expect_status]
    assert_equal [301, 302], build({ expect_status: ["301", "302"] })[:expect_status]
    e = assert_raises(Rackbench::UsageError) { build({ expect_status: "404" }) }
    assert_match(/--expect-status must be HTTP statuses from 200 to 399, e.g. 301 or 301,302 \(got "404"\); wrk counts 400/, e.message)
    assert_raises(Rackbench::UsageError) { build({ expect_status: "moved" }) }
  end

  def test_url_mode_excludes_setups
    assert_match(/drop --setup/, assert_raises(Rackbench::UsageError) { build({ url: "http://127.0.0.1:3000", setups: ["thin"] }) }.message)
    assert_match(/must be an http:\/\/ URL like/, assert_raises(Rackbench::UsageError) { build({ url: "127.0.0.1:3000" }) }.message)
  end

  # The base is kept; a path and query become the endpoint; with neither
  # (and no --endpoint) the endpoint is "/", not the arena's quick plan.
  def test_url_as_users_write_it
    { "http://127.0.0.1:3000" => ["/"], "http://127.0.0.1:3000/" => ["/"],
      "http://127.0.0.1:3000/posts?page=2" => ["/posts?page=2"], "http://127.0.0.1:3000/?q=1" => ["/?q=1"] }.each do |url, endpoints|
      cfg = build({ url: url })
      assert_equal ["http://127.0.0.1:3000", endpoints], [cfg[:url], cfg[:endpoints]], url
    end
    assert_equal ["/a", "/b"], build({ url: "http://127.0.0.1:3000/", endpoints: ["/a", "/b"] })[:endpoints]
    assert_equal [], build({ url: "http://127.0.0.1:3000", scenario: "/a:1,/b:2" })[:endpoints]
    %w[http:///x ftp://127.0.0.1/ http://127.0.0.1:3000/#top].each do |url|
      assert_raises(Rackbench::UsageError, url) { build({ url: url }) }
    end
    built = build({ url: "http://127.0.0.1:3000/x" })
    assert_equal built, Rackbench::Config.load(Rackbench::Config.dump(built)), "a stored config (--resume) builds the same plan"
  end

  def test_the_arena_refuses_an_endpoint_it_does_not_serve
    %w[/hello /fibonacci/25 /pause/0.05 /hello?x=1 /random].each { |e| assert_equal [e], build({ endpoints: [e] })[:endpoints] }
    ["/nope", "/fibonacci", "/hello/x", "/pi/", "/"].each do |e|
      error = assert_raises(Rackbench::UsageError, e) { build({ endpoints: [e] }) }
      assert_equal "the built-in arena app does not serve #{e}; its endpoints: /hello, /health, /fibonacci/:n, /template-render, " \
                   "/pause/:seconds, /pause-and-render/:seconds, /network-io, /network-io-and-render, /pi/:digits, /server, " \
                   "/random (your own app: --app PATH)", error.message
    end
    assert_raises(Rackbench::UsageError) { build({ health_path: "/healthz" }) }
    assert_equal ["/anything"], build({ app: "some/config.ru", endpoints: ["/anything"] })[:endpoints], "a user's app serves its own paths"
  end

  def test_default_setups_scale_to_cores
    assert_equal ["puma x4:5", "unicorn x4", "thin", "passenger x4", "falcon x4", "pitchfork x4"], Rackbench::Config.default_setups(4)
    assert_equal %w[puma unicorn thin passenger falcon pitchfork], Rackbench::Config.default_servers(4), "no server is opt-in"
    assert_equal ["puma x2:5", "thin"], Rackbench::Config.default_setups(2, installed: %w[puma thin])
  end

  # --margin: a share of 0 < m < 1; the seed drawn when not given and kept
  # through a stored config (so --resume keeps the rounds' orders).
  def test_margin_and_seed
    assert_in_delta 0.05, build({})[:margin]
    assert_in_delta 0.02, build({ margin: 0.02 })[:margin]
    [0, 1, 1.5, -0.1, "x"].each do |bad|
      error = assert_raises(Rackbench::UsageError, bad.inspect) { build({ margin: bad }) }
      assert_match(/--margin must be a percentage above 0 and below 100/, error.message)
    end
    assert_equal 42, build({ seed: "42" })[:seed]
    assert_raises(Rackbench::UsageError) { build({ seed: "-1" }) }
    drawn = build({})[:seed]
    assert_kind_of Integer, drawn
    assert_equal drawn, Rackbench::Config.load(Rackbench::Config.dump(build({ seed: drawn })))[:seed]
  end

  # Refused before anything boots: zero timeouts, more than a day, numbers
  # that are not plain decimals, and rounds past the maximum.
  def test_zero_timeouts_huge_durations_and_hex_numbers_are_refused
    { { timeout: "0" } => /--timeout must be a number of seconds above 0, at least 0.001 \(got "0"\): a shorter timeout fails every request/,
      { boot_timeout: 0 } => /--boot-timeout must be .* above 0, at least 0.1 .* fails every boot/,
      { health_timeout: "0" } => /--health-timeout .* fails every health check/,
      { duration: "1e9" } => /--duration "1e9" is over a day \(86400 s\)/,
      { duration: "0x10" } => /--duration must be a number of seconds >= 0.5 \(got "0x10"\)/,
      { cooldown: "1_0" } => /--cooldown must be a number/,
      { repeat: "10000" } => /--repeat must be a whole number from 1 to 1000/,
      { timeout: "1e-9" } => /--timeout must be a number of seconds above 0, at least 0.001 \(got "1e-9"\)/,
      { boot_timeout: "1e-9" } => /--boot-timeout must be a number of seconds above 0, at least 0.1 \(got "1e-9"\): .* every boot/,
      { health_timeout: "1e-9" } => /--health-timeout must be a number of seconds above 0, at least 0.001 \(got "1e-9"\)/,
      { max_rounds: "100000" } => /--max-rounds must be a whole number of 2 or more, at most 1000 \(got "100000"\)/ }.each do |settings, message|
      error = assert_raises(Rackbench::UsageError, settings.inspect) { build(settings) }
      assert_match message, error.message
    end
    assert_in_delta 15.0, build({ duration: "1.5e1" })[:duration]
    assert_in_delta 0.5, build({ timeout: ".5" })[:timeout]
  end

  def test_an_endpoint_with_white_space_names_the_character_and_its_encoding
    error = assert_raises(Rackbench::UsageError) { build({ endpoints: ["/he llo"] }) }
    assert_equal 'endpoint "/he llo" holds " " at position 4: write it percent-encoded (%20), e.g. --endpoint /he%20llo', error.message
    error = assert_raises(Rackbench::UsageError) { build({ endpoints: ["/a\nb"] }) }
    assert_match(/holds "\\n" at position 3: write it percent-encoded \(%0A\)/, error.message)
    assert_equal ["/q?a={1}"], build({ app: "/srv/app", endpoints: ["/q?a={1}"] })[:endpoints], "kept as written; sent encoded"
  end

  # --aslr: on (the default) or off; off is refused for --url (the user's
  # own server) and where setarch cannot turn randomisation off.
  def test_aslr_is_on_or_off
    assert_equal "on", Rackbench::Config.build({})[:aslr]
    assert_equal "off", Rackbench::Config.build(aslr: "OFF")[:aslr] if Rackbench::ProcessControl::Layout.problem.nil?
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(aslr: "maybe") }
    assert_equal '--aslr must be on or off (got "maybe")', e.message
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(aslr: "off", url: "http://127.0.0.1:9/") }
    assert_match(/the server at --url is your own: drop --aslr/, e.message)
  end
  # --boot: apart (the default) or together; together needs 2 or more
  # setups of rackbench's own, each on a free port.
  def test_boot_is_apart_or_together
    assert_equal "apart", Rackbench::Config.build({})[:boot]
    assert_equal "together", Rackbench::Config.build(boot: "Together")[:boot], "the default setups are six"
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(boot: "side") }
    assert_equal '--boot must be apart or together (got "side")', e.message
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(boot: "together", setups: ["puma x2:5"]) }
    assert_equal '--boot together boots a round\'s setups side by side: give 2 or more (-s "puma x2:5" -s ...)', e.message
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(boot: "together", port: 9292) }
    assert_match(/drop --port/, e.message)
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(boot: "together", url: "http://127.0.0.1:9/") }
    assert_match(/drop --boot/, e.message)
  end

  # Issue 42, item 4: a run that names no plan and no rounds is the quick
  # race; anything that names a plan or rounds keeps its own.
  def test_the_quick_plan_is_a_race_only_when_nothing_names_a_plan
    c = Rackbench::Config
    quick = c.build(c.quick_layer({}), {})
    assert_equal [8], quick[:concurrency]
    assert quick[:decide]
    assert_equal c::QUICK[:max_rounds], quick[:max_rounds]
    assert_equal [1, 8], c.build(c.quick_layer({}), { concurrency: [1, 8] })[:concurrency], "-c wins over the quick layer"
    assert_equal 2.0, c.build(c.quick_layer({}), { duration: 2.0 })[:duration]
    { setups: ["puma x2:5"], endpoints: ["/hello"], repeat: 3, decide: true, app: "rails", url: "http://127.0.0.1:1/" }.each do |key, value|
      assert_nil c.quick_layer({ key => value }), "#{key} names a plan or rounds"
    end
    assert_nil c.quick_layer({}, plan_path: "plan.rb")
    assert_nil c.quick_layer({}, suite: "field-2026")
  end
end
