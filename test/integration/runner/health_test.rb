# frozen_string_literal: true

require "test_helper"
require "json"

# The health check during every trial (runner/health_check.rb): a GET every
# 0.5 s on its own connection, stored in the trial's "health".
class HealthIntegrationTest < Minitest::Test
  def trials(dir)
    File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
  end

  # On the arena: /health, checked while /pause/0.1 keeps 2 of Puma's 4
  # threads busy, so each check is answered at once by a free thread.
  def test_arena_trials_store_their_health_checks
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "-s", "puma x1:4", "-e", "/pause/0.1", "-c", "2", "-d", "2", "--warmup", "0",
                                "-q", "-o", dir)
    assert_equal 0, status, err
    health = trials(dir).first.fetch("health")
    assert_equal "/health", health["path"]
    assert_includes 3..6, health["checks"], "2 s of trial at one check per 0.5 s: #{health}"
    assert_equal 0, health["failures"], health.to_s
    assert_operator health["median_ms"], :<, 50, "a free thread answers /health at once: #{health}"
    assert_operator health["max_ms"], :>=, health["median_ms"]
  end

  # --health-path on a user's app: the checks go to that path (the app logs
  # each request), and a path the app fails counts every check as failed.
  def test_health_path_on_a_users_app
    log = File.join(tmpdir, "requests.log")
    app = File.join(tmpdir, "config.ru")
    File.write(app, <<~RUBY)
      log = File.open(#{log.inspect}, "a")
      log.sync = true
      run lambda { |env|
        log.write(env["PATH_INFO"] + "\\n")
        status = env["PATH_INFO"] == "/broken" ? 500 : 200
        [status, { "content-type" => "text/plain", "content-length" => "2" }, ["ok"]]
      }
    RUBY
    { "/up" => 0, "/broken" => nil }.each do |path, failures|
      File.write(log, "")
      dir = File.join(tmpdir, "run")
      status, _out, err = run_cli("run", "--app", app, "-s", "puma x1:2", "-e", "/", "--health-path", path, "-c", "1",
                                  "-d", "1.5", "--warmup", "0", "-q", "-o", dir)
      assert_equal 0, status, err
      health = trials(dir).first.fetch("health")
      assert_equal path, health["path"]
      assert_includes 2..5, health["checks"], health.to_s
      assert_equal health["checks"], File.readlines(log, chomp: true).count(path), "every check reached the app at #{path}"
      assert_equal failures || health["checks"], health["failures"], "#{path}: #{health}"
    end
  end
end
