# frozen_string_literal: true

require "test_helper"
require "rackbench/store/run_dir"

class RunDirTest < Minitest::Test
  def test_appends_and_reads_back
    dir = Rackbench::Store::RunDir.create(File.join(tmpdir, "run"))
    dir.write_meta("plan" => { "trials" => 2 })
    dir.append_trial("setup" => "thin", "rps" => 10.5)
    dir.append_trial("setup" => "thin", "rps" => 11.5)
    assert_equal [10.5, 11.5], dir.trials.map { |t| t["rps"] }
    assert_equal 2, Rackbench::Store::RunDir.open(dir.path).meta.dig("plan", "trials")
  end

  def test_a_line_cut_short_by_a_crash_is_skipped
    dir = Rackbench::Store::RunDir.create(File.join(tmpdir, "run"))
    dir.append_trial("setup" => "a")
    File.write(File.join(dir.path, "trials.jsonl"), "{\"setup\":\"b", mode: "a")
    assert_equal ["a"], dir.trials.map { |t| t["setup"] }
  end

  def test_unwritable_directory_is_one_clear_error
    file = File.join(tmpdir, "plainfile")
    File.write(file, "x")
    e = assert_raises(Rackbench::Error) { Rackbench::Store::RunDir.create(File.join(file, "run")) }
    assert_match(/cannot write the run directory .*choose another with --out DIR/, e.message)
  end

  def test_open_rejects_a_directory_without_meta
    e = assert_raises(Rackbench::Error) { Rackbench::Store::RunDir.open(tmpdir) }
    assert_match(/not a rackbench run directory/, e.message)
  end
end
