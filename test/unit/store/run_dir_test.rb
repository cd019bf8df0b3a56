# frozen_string_literal: true

require "test_helper"
require "rackbench/store/run_dir"

class RunDirTest < Minitest::Test
  def store
    @store ||= Rackbench::Store::RunDir.create(File.join(tmpdir, "run")).tap { |d| d.write_meta("plan" => { "trials" => 2 }) }
  end

  def trial(setup, rps = 1.0)
    { "key" => "#{setup}|/x", "setup" => setup, "endpoint" => "/x", "rps" => rps }
  end

  def trials_file
    File.join(store.path, "trials.jsonl")
  end

  def test_appends_and_reads_back
    store.append_trial(trial("thin", 10.5))
    store.append_trial(trial("thin", 11.5))
    assert_equal [10.5, 11.5], store.trials.map { |t| t["rps"] }
    assert_equal 2, Rackbench::Store::RunDir.open(store.path).meta.dig("plan", "trials")
    assert_empty store.notices
  end

  def test_a_last_line_cut_short_by_a_crash_is_left_out_with_a_notice
    store.append_trial(trial("a"))
    File.write(trials_file, "{\"setup\":\"b", mode: "a")
    assert_equal ["a"], store.trials.map { |t| t["setup"] }
    assert_equal ["#{trials_file} line 2 was cut short (a crash while writing it) and is left out"], store.notices
  end

  def test_a_whole_last_record_without_its_newline_is_kept
    File.write(trials_file, JSON.generate(trial("a")))
    assert_equal ["a"], store.trials.map { |t| t["setup"] }
    assert_empty store.notices
  end

  # A line that is not a record of its kind, anywhere but a cut-short end,
  # is an error naming file and line, never skipped and never a crash.
  def test_a_line_that_is_not_a_record_names_file_and_line
    { "[]" => "is not a trial record ([])", "42" => "is not a trial record (42)",
      "{\"key\":1}" => "is not a trial record ({\"key\":1})", "{oops" => "is not JSON" }.each do |line, what|
      File.write(trials_file, "#{JSON.generate(trial('a'))}\n#{line}\n#{JSON.generate(trial('b'))}\n")
      e = assert_raises(Rackbench::Error) { store.trials }
      assert_equal "#{trials_file} line 2 #{what}", e.message[/\A.*line 2 [^;]*/].sub(/ \(".*/, "")
      assert_match(/; fix or delete that line\z/, e.message)
    end
  end

  def test_a_fragment_left_by_a_crash_is_moved_aside_before_the_next_append
    store.append_trial(trial("a"))
    File.write(trials_file, "{\"setup\":\"b\",\"en", mode: "a")
    seen = []
    store.on_notice = ->(text) { seen << text }
    store.append_trial(trial("c"))
    assert_equal %w[a c], store.trials.map { |t| t["setup"] }, "the record after the fragment is not lost"
    aside = Dir[File.join(store.path, "trials.jsonl.fragment-*")]
    assert_equal 1, aside.size
    assert_equal "{\"setup\":\"b\",\"en", File.read(aside.first)
    assert_equal 1, seen.size
    assert_match(/trials.jsonl ended in a line cut short \(16 bytes.*moved it to trials.jsonl.fragment-/, seen.first)
  end

  # ENOSPC simulated by a file system that takes only part of the write
  # (the real full disk is test/integration/full_disk_test.rb).
  def test_a_failed_append_leaves_no_half_line
    store.append_trial(trial("a"))
    before = File.binread(trials_file)
    lines = Rackbench::Store::JsonLines.new(trials_file, kind: "trial")
    file = File.open(trials_file, "a")
    def file.syswrite(text)
      return super(text[0, 10]) unless @failed

      raise Errno::ENOSPC
    ensure
      @failed = true
    end
    e = assert_raises(Errno::ENOSPC) { lines.send(:write_or_truncate, file, JSON.generate(trial("b")) + "\n", before.bytesize) }
    file.close
    assert_kind_of Errno::ENOSPC, e
    assert_equal before, File.binread(trials_file)
  end

  # Issue 46: a link where the lock belongs (a fresh --out holding only
  # that link) is refused, and what it leads to is not truncated.
  def test_a_linked_lock_is_refused_and_its_target_kept
    dir = File.join(tmpdir, "run")
    Dir.mkdir(dir)
    victim = File.join(tmpdir, "victim")
    File.write(victim, "precious\n")
    File.symlink(victim, File.join(dir, ".rackbench.lock"))
    e = assert_raises(Rackbench::Error) { Rackbench::Store::RunDir.create(dir, command: "rackbench run") }
    assert_match(/\A#{Regexp.escape(dir)}\/\.rackbench\.lock is a symbolic link; .*: remove it and run again\z/, e.message)
    assert_equal "precious\n", File.read(victim)
  end

  # meta.json's temporary copy is made new: a link put at its name is
  # removed, never written through.
  def test_write_atomically_never_follows_a_link_at_its_temporary_name
    victim = File.join(tmpdir, "victim")
    File.write(victim, "precious\n")
    File.symlink(victim, File.join(store.path, "meta.json.tmp-#{Process.pid}"))
    store.write_meta("plan" => { "trials" => 3 })
    assert_equal "precious\n", File.read(victim)
    assert_equal 3, store.meta.dig("plan", "trials")
    refute File.exist?(File.join(store.path, "meta.json.tmp-#{Process.pid}"))
  end

  def test_a_truncated_meta_is_a_clear_error
    File.write(File.join(store.path, "meta.json"), "{\"plan\": {\"tri")
    e = assert_raises(Rackbench::Error) { Rackbench::Store::RunDir.open(store.path).meta }
    assert_match(/meta.json is cut short or not JSON; the run directory is damaged/, e.message)
    File.write(File.join(store.path, "meta.json"), "[1]")
    e = assert_raises(Rackbench::Error) { store.meta }
    assert_match(/meta.json is not a JSON object/, e.message)
  end

  def test_warnings_are_stored
    store.append_warning("at" => "now", "text" => "warm-up failed")
    assert_equal ["warm-up failed"], store.warnings.map { |w| w["text"] }
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

  # Lines of the right shape with wrong types, or a trial without its
  # figures, are refused when read, naming file and line (report, compare
  # and --resume crashed on them with exit 70).
  def test_a_trial_line_with_a_wrong_type_or_no_figures_is_an_error
    { %({"key":"k","setup":42,"endpoint":"/x","rps":1.0}) => /line 1 is not a trial record: setup is 42, not a string/,
      %({"key":"k","setup":"a","endpoint":"/x","rps":"fast"}) => /line 1 is not a trial record: rps is "fast", not a number/,
      %({"setup":"a","endpoint":"/x"}) => /line 1 is not a trial record \(\{"setup":"a","endpoint":"\/x"\}\)/,
      %({"key":"k","setup":"a","endpoint":"/x","rps":1.0,"latency_ms":[1]}) => /latency_ms is \[1\], not a JSON object/ }.each do |line, message|
      File.write(trials_file, "#{line}\n")
      error = assert_raises(Rackbench::Error, line) { Rackbench::Store::RunDir.open(store.path).trials }
      assert_match message, error.message
      assert_match(/trials.jsonl line 1 .*; fix or delete that line\z/, error.message)
    end
  end
end
