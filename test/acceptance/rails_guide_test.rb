# frozen_string_literal: true

require "test_helper"
require "digest"
require "json"
require "securerandom"
require_relative "../support/user_shell"
require_relative "../support/rails_copy"

# docs/your-rails-app.md, step by step, on a copy of the built-in Rails
# workload (test/support/rails_copy.rb), run as its reader runs it:
# `rackbench run --app .` from the app's directory, with what the guide has
# them export (test/support/user_shell.rb). The lines the guide quotes are
# compared with what rackbench really printed, the copy's path written as the
# guide's /home/you/src/myapp. The workload has no Active Record and no asset
# pipeline: for the database and assets steps the guide's commands are
# checked to be shown, and the exported SECRET_KEY_BASE (the database step's
# point) to reach every server unchanged.
class RailsGuideTest < Minitest::Test
  include Rackbench::RailsCopy

  GUIDE = File.read(File.expand_path("../../docs/your-rails-app.md", __dir__))
  SHOWN_APP = "/home/you/src/myapp"
  QUICK = ["-e", "/hello", "-c", "1", "-d", "1", "--warmup", "0", "--cooldown", "0"].freeze
  # What a passing run must not print: a warning, a stack trace, a failure.
  NOISE = /^WARN|\.rb:\d+: warning:|^\s+from .*:\d+:in |\bFAILED\b/.freeze

  def shell(app, env = {})
    Rackbench::UserShell.new(app, env: env)
  end

  def assert_guide_shows(text)
    assert GUIDE.include?(text), "docs/your-rails-app.md should show, as it is:\n#{text}"
  end

  # rackbench prints the app's absolute path (the working directory as the
  # kernel reports it); the guide writes /home/you/src/myapp.
  def as_shown(text, app)
    [File.realpath(app), app].uniq.reduce(text) { |t, path| t.gsub(path, SHOWN_APP) }
  end

  def read_jsonl(dir, name)
    path = File.join(dir, name)
    File.exist?(path) ? File.readlines(path).map { |l| JSON.parse(l) } : []
  end

  def write(app, path, text)
    FileUtils.mkdir_p(File.dirname(File.join(app, path)))
    File.write(File.join(app, path), text)
  end

  # An initializer in the copy: what each server process's app saw when it
  # loaded (the stored env masks secrets, so the secret is compared by digest).
  def witness(app, dir)
    write(app, "config/initializers/guide_witness.rb", <<~RUBY)
      require "digest"
      require "json"
      File.write(File.join(#{dir.inspect}, "\#{Process.pid}.json"), JSON.generate(
        "server" => ENV["RACKBENCH_SERVER"], "rails_env" => Rails.env, "rack_env" => ENV["RACK_ENV"],
        "rails_log_level" => ENV["RAILS_LOG_LEVEL"], "secret_sha256" => Digest::SHA256.hexdigest(Rails.application.secret_key_base)
      ))
    RUBY
  end

  def production_rb(*lines)
    "Rails.application.configure do\n#{lines.map { |l| "  #{l}\n" }.join}end\n"
  end

  # Steps 1, 2, 4 and 5: production mode as the app sees it, the exported
  # secret under every server unchanged (Passenger included, which boots the
  # workload's Rails 7.2 lock, stringio 3.2.0, through its wrapper), force_ssl
  # answered with assume_ssl, a run that measures /hello and exits 0.
  def test_the_prepared_app_runs_in_production_with_your_secret_under_every_server
    require_tool!("wrk")
    require_tool!("passenger")
    ["export SECRET_KEY_BASE=$(bin/rails secret)", "RAILS_ENV=production bin/rails db:prepare",
     "RAILS_ENV=production bin/rails assets:precompile", "config.assume_ssl = true", "export RAILS_LOG_LEVEL=warn",
     "rackbench run --app . -s \"puma x2:5\" -e /posts -e /posts/1"].each { |shown| assert_guide_shows(shown) }
    app = rails_copy
    seen = tmpdir
    witness(app, seen)
    write(app, "config/environments/production.rb", production_rb("config.force_ssl = true", "config.assume_ssl = true"))
    secret = SecureRandom.hex(64) # what `bin/rails secret` prints

    res = shell(app, "SECRET_KEY_BASE" => secret, "RAILS_LOG_LEVEL" => "warn")
          .run("run", "--app", ".", "-s", "puma x1:1", "-s", "unicorn x1", "-s", "passenger x1", *QUICK, "-o", "runs/first")
    assert_equal 0, res.status, res.stderr + res.stdout
    refute_match NOISE, res.stdout + res.stderr
    out = File.join(app, "runs/first")
    trials = read_jsonl(out, "trials.jsonl")
    assert_equal ["passenger x1", "puma x1:1", "unicorn x1"], trials.map { |t| t["setup"] }.sort
    trials.each do |t|
      assert t["verified"], "#{t['setup']}: /hello answered 200 with the workload's content (no 301: assume_ssl)"
      assert_operator t["requests"], :>, 0, t["setup"]
      assert_equal 0, t["error_total"], "#{t['setup']}: #{t['errors']}"
    end

    witnesses = Dir[File.join(seen, "*.json")].map { |f| JSON.parse(File.read(f)) }
    assert_equal %w[passenger puma unicorn], witnesses.map { |w| w["server"] }.uniq.sort, "every server's app loaded"
    witnesses.each do |w|
      assert_equal ["production", "production", "warn"], w.values_at("rails_env", "rack_env", "rails_log_level"), w["server"]
      assert_equal Digest::SHA256.hexdigest(secret), w["secret_sha256"], "#{w['server']}: the exported SECRET_KEY_BASE, unchanged"
    end
    setups = read_jsonl(out, "setups.jsonl")
    assert_equal 3, setups.size
    setups.each do |s|
      assert_equal "ok", s["status"], s["reason"]
      assert_equal %w[production production], s["env"].values_at("RAILS_ENV", "RACK_ENV"), s["setup"]
      refute s["env"].key?("SECRET_KEY_BASE"), "#{s['setup']}: rackbench generated no secret, so it stores none"
    end
  end

  # Step 4: force_ssl's 301 named with its fixes, as the guide quotes it;
  # --expect-status 301 then measures the redirect.
  def test_force_ssl_is_named_with_its_fixes_and_expect_status_measures_the_redirect
    require_tool!("wrk")
    app = rails_copy
    write(app, "config/environments/production.rb", production_rb("config.force_ssl = true"))
    user = shell(app)

    refused = user.run("run", "--app", ".", "-s", "puma x1:1", *QUICK, "-o", "runs/ssl")
    assert_equal 1, refused.status, refused.stderr
    line = refused.stdout[/^FAILED .*$/]
    assert_match %r{\AFAILED puma x1:1 \(repetition 1\): verification of /hello failed: status 301 redirects to https://127\.0\.0\.1:\d+/hello: },
                 line.to_s, refused.stdout
    assert_guide_shows(line.gsub("puma x1:1", "puma x2:5").gsub("/hello", "/posts").sub(/127\.0\.0\.1:\d+/, "127.0.0.1:40987"))
    assert_empty read_jsonl(File.join(app, "runs/ssl"), "trials.jsonl"), "nothing measured"

    assert_guide_shows("rackbench run --app . -s \"puma x2:5\" -e /posts --expect-status 301")
    redirect = user.run("run", "--app", ".", "-s", "puma x1:1", *QUICK, "--expect-status", "301", "-o", "runs/redirect")
    assert_equal 0, redirect.status, redirect.stderr + redirect.stdout
    trial = read_jsonl(File.join(app, "runs/redirect"), "trials.jsonl").first
    assert trial["verified"]
    assert_operator trial["requests"], :>, 0
    assert_equal 0, trial["error_total"], trial["errors"].inspect
  end

  # Step 6: a stale lockfile, then servers the bundle lacks: one line each,
  # exit 2, nothing booted, as the guide quotes them.
  def test_a_stale_lock_and_missing_servers_are_one_line_each_before_any_boot
    app = rails_copy
    lock = File.join(app, "Gemfile.lock")
    original = File.read(lock)
    stale = original.sub("    nio4r (2.7.5)\n", "    nio4r (2.7.4)\n")
    refute_equal original, stale, "the workload's lock has nio4r 2.7.5 (update the test and the guide with it)"
    File.write(lock, stale)
    res = shell(app).run("run", "--app", ".", "-s", "puma x1:1", *QUICK, "-o", "runs/stale")
    assert_equal 2, res.status
    assert_empty res.stdout
    assert_equal 1, res.stderr.lines.size, res.stderr
    assert_guide_shows(as_shown(res.stderr.chomp, app))
    refute File.exist?(File.join(app, "runs/stale")), "nothing booted"
    assert_equal stale, File.read(lock), "the check leaves the lock as it was"

    File.write(lock, original)
    drop_gems(app, %w[unicorn falcon json])
    bundle(app, "install", "--local")
    res = shell(app).run("run", "--app", ".", "-s", "puma x1:1", "-s", "unicorn x1", "-s", "falcon x1", *QUICK, "-o", "runs/missing")
    assert_equal 2, res.status
    assert_empty res.stdout
    assert_equal 1, res.stderr.lines.size, res.stderr
    assert_guide_shows(as_shown(res.stderr.chomp, app))
    refute File.exist?(File.join(app, "runs/missing")), "nothing booted"
  end

  # Step 5: the conflict as the guide quotes it and reproduces it, and its
  # fixes: the development group left out (a lock naming error_highlight
  # 0.7.0, not installed here, as a Rails 7.2 app generated on Ruby 3.1
  # has), then the default versions pinned, resolved without a download.
  def test_a_default_gem_conflict_and_the_fixes_the_guide_gives
    app = rails_copy
    repro = "ruby -rstringio -rbundler/setup -e 'puts StringIO::VERSION'"
    assert_guide_shows(repro)
    conflict = ruby_in(app, "-rstringio", "-rbundler/setup", "-e", "puts StringIO::VERSION")
    refute conflict[:ok], "the workload's lock has stringio 3.2.0, and Ruby's default 3.0.1.2 is loaded first"
    assert_guide_shows(conflict[:err][/You have already activated stringio .*\(Gem::LoadError\)/].to_s)

    generated = 'gem "error_highlight", ">= 0.4.0", platforms: [ :ruby ]'
    assert_guide_shows(generated)
    File.write(File.join(app, "Gemfile"), "#{File.read(File.join(app, 'Gemfile'))}group :development do\n  #{generated}\nend\n")
    lock = File.join(app, "Gemfile.lock")
    File.write(lock, File.read(lock).sub(/^    erubi \(/, "    error_highlight (0.7.0)\n    erubi (")
                                   .sub(/^  falcon \(/, "  error_highlight (>= 0.4.0)\n  falcon ("))
    refute ruby_in(app, "-rbundler/setup", "-e", "1")[:ok], "error_highlight 0.7.0 is not installed here"
    assert_guide_shows("bundle config set --local without development test")
    bundle(app, "config", "set", "--local", "without", "development", "test")
    left_out = ruby_in(app, "-rbundler/setup", "-e", 'puts Gem.loaded_specs["error_highlight"].version')
    assert_equal "0.3.0", left_out[:out].strip, left_out[:err]

    bundle(app, "config", "unset", "--local", "without")
    pins = GUIDE.scan(/^\s*(gem "(?:error_highlight|stringio)", "[^"]+")/).flatten
    assert_equal ['gem "error_highlight", "0.3.0"', 'gem "stringio", "3.0.1.2"'], pins
    gemfile = File.join(app, "Gemfile")
    File.write(gemfile, "#{File.read(gemfile).sub(generated, pins.first)}#{pins.last}\n")
    bundle(app, "install", "--local") # --local: nothing downloaded
    pinned = ruby_in(app, "-rstringio", "-rbundler/setup", "-e", 'puts StringIO::VERSION, Gem.loaded_specs["error_highlight"].version')
    assert_equal "3.0.1.2\n0.3.0\n", pinned[:out], pinned[:err]
  end

  # `ruby ARGS` in the app's directory as its user runs it: outside the
  # test's bundle, the app's own Gemfile found from there.
  # GEM_HOME and GEM_PATH unset too: under rackbench's bundle they name its
  # vendor/bundle alone (issue 34), which a user's shell in the app never has.
  def ruby_in(app, *args)
    env = ENV.keys.grep(Rackbench::UserShell::LEAKY).to_h { |k| [k, nil] }.merge("GEM_HOME" => nil, "GEM_PATH" => nil)
    out, err, status = capture_with_timeout(env, RbConfig.ruby, *args, chdir: app, timeout: 300)
    { ok: status.success?, out: out, err: err }
  end
end
