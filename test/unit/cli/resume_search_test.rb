# frozen_string_literal: true

require "test_helper"
require_relative "../report/run_fixture"

# `run --resume` on a capacity or tune run directory: those searches cannot
# be continued, so say so and what to run, instead of running an ordinary
# grid into the search's directory.
class ResumeSearchTest < Minitest::Test
  def test_a_capacity_run_is_not_resumed_as_a_grid
    dir = File.join(tmpdir, "cap")
    Rackbench::RunFixture.capacity_run(dir)
    meta = JSON.parse(File.read(File.join(dir, "meta.json")))
    argv = ["rackbench", "capacity", "-s", "puma x2:5", "-e", "/pause/0.05"]
    File.write(File.join(dir, "meta.json"), JSON.generate(meta.merge("command" => "capacity", "argv" => argv,
                                                                      "config" => { "endpoints" => ["/pause/0.05"] })))
    trials_before = File.read(File.join(dir, "trials.jsonl"))
    status, _out, err = run_cli("run", "--resume", dir)
    assert_equal 2, status, err
    assert_match(/\AError: .*cap holds a rackbench capacity run, which cannot be resumed .*run it again \(rackbench capacity -s puma\\ x2:5 -e \/pause\/0.05\) with a new --out; its stored trials stay readable with rackbench report .*cap\n\z/, err)
    assert_equal trials_before, File.read(File.join(dir, "trials.jsonl")), "nothing measured into the capacity run"
  end

  # The command shown leaves out the run's own --out: run as shown it was
  # refused again, as that directory exists (issue 46, item 8: circular).
  def test_the_command_to_run_again_names_no_out_of_its_own
    dir = File.join(tmpdir, "tune")
    Rackbench::RunFixture.capacity_run(dir)
    meta = JSON.parse(File.read(File.join(dir, "meta.json")))
    argv = ["rackbench", "tune", "--memory-budget", "1GiB", "-o", dir, "-e", "/pause/0.05", "--out=#{dir}"]
    File.write(File.join(dir, "meta.json"), JSON.generate(meta.merge("command" => "tune", "argv" => argv,
                                                                      "config" => { "endpoints" => ["/pause/0.05"] })))
    status, _out, err = run_cli("run", "--resume", dir)
    assert_equal 2, status, err
    assert_includes err, "run it again (rackbench tune --memory-budget 1GiB -e /pause/0.05) with a new --out"
  end
end

# A password in --url is stored nowhere: not in meta.json's argv, the lock,
# trials or setups (the URL kept is the base without userinfo).
class UrlSecretTest < Minitest::Test
  def test_url_credentials_are_masked_in_every_stored_file
    out = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "--engine", "fake", "--url", "http://bench:s3cr3t-pw@127.0.0.1:9/", "--no-verify",
                                "-c", "1", "-d", "0.5", "--warmup", "0", "-o", out)
    assert_equal 0, status, err
    stored = Dir.glob(File.join(out, "**", "*"), File::FNM_DOTMATCH).select { |f| File.file?(f) }
    assert_operator stored.size, :>=, 3
    stored.each { |f| refute_includes File.binread(f), "s3cr3t-pw", f }
    assert_includes File.read(File.join(out, "meta.json")), "http://bench:***@127.0.0.1:9/"
    refute_includes err, "s3cr3t-pw"
    status, _out, err = run_cli("run", "--url", "bench:s3cr3t-pw@127.0.0.1:9")
    assert_equal 2, status
    refute_includes err, "s3cr3t-pw"
  end
end
