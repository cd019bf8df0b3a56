# frozen_string_literal: true

require "test_helper"
require "json"

# A user's app gets a generated SECRET_KEY_BASE (Workload::App#env); the run
# directory records the server's environment with the secret masked
# (Session::StoredEnv.redact) and holds the real value nowhere. The app writes the
# value it received to a file outside the run directory, to compare.
class SecretsIntegrationTest < Minitest::Test
  def test_setups_jsonl_masks_the_generated_secret
    seen = File.join(tmpdir, "secret.txt")
    app = File.join(tmpdir, "config.ru")
    File.write(app, <<~RUBY)
      File.write(#{seen.inspect}, ENV.fetch("SECRET_KEY_BASE"))
      run ->(_env) { [200, { "content-type" => "text/plain", "content-length" => "2" }, ["ok"]] }
    RUBY
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "--app", app, "-s", "puma x1:2", "-e", "/", "-c", "1", "-d", "1", "--warmup", "0",
                                "-q", "-o", dir)
    assert_equal 0, status, err
    secret = File.read(seen)
    assert_match(/\A\h{128}\z/, secret, "the server got a generated 64-byte secret")
    setup = JSON.parse(File.readlines(File.join(dir, "setups.jsonl")).first)
    assert_equal "(generated, not stored)", setup.dig("env", "SECRET_KEY_BASE")
    assert_equal "production", setup.dig("env", "RACK_ENV"), "the rest of the environment is stored as is"
    leaks = Dir.glob(File.join(dir, "**", "*")).select { |f| File.file?(f) && File.binread(f).include?(secret) }
    assert_empty leaks, "the secret is written nowhere in the run directory"
  end
end
