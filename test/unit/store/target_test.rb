# frozen_string_literal: true

require "test_helper"
require "rackbench/store/run_dir"

# Where a new run may be written (Store::Target), and default run names.
class TargetTest < Minitest::Test
  Target = Rackbench::Store::Target
  RunDir = Rackbench::Store::RunDir

  def test_relative_paths_are_made_absolute_against_the_working_directory
    dir = tmpdir
    Dir.chdir(dir) do
      store = RunDir.create("runs/first")
      assert_equal File.join(File.realpath(dir), "runs/first"), File.realpath(store.path)
      assert store.path.start_with?("/"), store.path
      store.unlock
    end
  end

  def test_empty_out_is_refused_and_writes_nothing
    ["", "  ", nil].each do |bad|
      e = assert_raises(Rackbench::UsageError) { Target.check_new(bad) }
      assert_match(/--out is empty: give a directory/, e.message)
    end
  end

  def test_the_filesystem_root_and_a_file_are_refused
    assert_match(/filesystem root/, assert_raises(Rackbench::UsageError) { Target.check_new("/") }.message)
    file = File.join(tmpdir, "notes.txt")
    File.write(file, "x")
    assert_match(/is a file, not a directory/, assert_raises(Rackbench::UsageError) { Target.check_new(file) }.message)
  end

  def test_a_non_empty_directory_that_is_not_a_run_is_refused
    dir = tmpdir
    File.write(File.join(dir, "Gemfile"), "")
    e = assert_raises(Rackbench::UsageError) { RunDir.create(dir) }
    assert_match(/is not empty and is not a run directory \(it holds Gemfile\)/, e.message)
    assert_equal %w[Gemfile], Dir.children(dir)
  end

  def test_an_empty_directory_is_accepted
    dir = tmpdir
    RunDir.create(dir).unlock
    assert File.directory?(File.join(dir, "logs"))
  end

  def test_trials_without_meta_is_not_a_run_to_continue
    dir = tmpdir
    File.write(File.join(dir, "trials.jsonl"), %({"key":"a","rps":1}\n))
    e = assert_raises(Rackbench::UsageError) { RunDir.create(dir) }
    assert_match(/holds trials.jsonl but no meta.json: it is not a run rackbench can continue/, e.message)
    refute File.exist?(File.join(dir, "meta.json"))
  end

  def test_a_finished_run_is_refused_with_the_resume_command
    store = RunDir.create(File.join(tmpdir, "run"))
    store.write_meta("plan" => {})
    store.unlock
    e = assert_raises(Rackbench::UsageError) { RunDir.create(store.path) }
    assert_match(/already holds a run; continue it with rackbench run --resume #{Regexp.escape(store.path)}/, e.message)
  end

  def test_default_names_never_collide
    base = tmpdir
    stores = Array.new(5) { RunDir.create_default(base: base) }
    assert_equal 5, stores.map(&:path).uniq.size
    stores.each do |s|
      assert_match(%r{/rackbench-runs/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}(-\d+)?\z}, s.path)
      s.unlock
    end
  end

  def test_default_names_in_the_same_millisecond_get_a_suffix
    base = tmpdir
    frozen = Time.at(1_700_000_000.123)
    Time.stub(:now, frozen) do
      a = RunDir.create_default("tune-", base: base)
      b = RunDir.create_default("tune-", base: base)
      assert_equal "#{a.path}-2", b.path
      [a, b].each(&:unlock)
    end
  end
end
