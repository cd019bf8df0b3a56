# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require "fileutils"
require "rackbench/store/packed_trials"

# Issue 46: a report reads a run's trials packed, a line at a time, and gets
# what RunDir#trials gives: the same records in the same order, one per
# boot, with the same lines left out and the same notices.
class PackedTrialsTest < Minitest::Test
  RunDir = Rackbench::Store::RunDir
  PackedTrials = Rackbench::Store::PackedTrials
  RECORDED = JSON.parse(File.read(File.expand_path("../../fixtures/store/recorded_trial.jsonl", __dir__)).lines.first)

  def trial(setup, rep, take: nil, rps: 100.0)
    t = RECORDED.merge("key" => "#{setup}|/hello|1|#{rep}", "setup" => setup, "repetition" => rep, "rps" => rps)
    take ? t.merge("take" => take, "key" => "#{t['key']}|t#{take}") : t
  end

  def write_run(lines, tail: "")
    dir = Dir.mktmpdir("packed-trials")
    File.write(File.join(dir, "meta.json"), JSON.generate("rackbench" => "test", "command" => "run"))
    File.write(File.join(dir, "trials.jsonl"), lines.map { |l| l.is_a?(String) ? l : JSON.generate(l) }.join("\n") + "\n" + tail)
    dir
  end

  # [records, notices] as RunDir#trials reads them, and as PackedTrials does.
  def both(dir)
    plain = RunDir.open(dir)
    packed = RunDir.open(dir)
    [[plain.trials, plain.notices], [PackedTrials.read(packed).map(&:to_h), packed.notices]]
  end

  def test_the_same_trials_as_the_run_directory_gives
    lines = [trial("a", 1), trial("b", 1, rps: 7.5), trial("a", 2)]
    copy = JSON.generate(lines[1])
    dir = write_run(lines + [copy], tail: JSON.generate(trial("b", 2))[0, 100])
    expected, got = both(dir)
    assert_equal expected, got
    assert_equal lines, got[0]
    assert_equal 2, got[1].size, "the copy and the line cut short, said: #{got[1].inspect}"
  ensure
    FileUtils.rm_rf(dir) if dir
  end

  def test_a_boots_takes_become_one_record
    lines = [trial("a", 1, take: 1, rps: 100.0), trial("b", 1), trial("a", 1, take: 2, rps: 110.0), trial("a", 2, take: 1)]
    dir = write_run(lines)
    expected, got = both(dir)
    assert_equal expected, got
    assert_equal [2, nil, 1], got[0].map { |t| t["takes"] }
    assert_in_delta 105.0, got[0][0]["rps"], 1e-9
  ensure
    FileUtils.rm_rf(dir) if dir
  end

  def test_a_damaged_line_is_the_same_error
    dir = write_run([trial("a", 1), "{\"setup\": 42}"])
    errors = [-> { RunDir.open(dir).trials }, -> { PackedTrials.read(RunDir.open(dir)) }].map do |read|
      assert_raises(Rackbench::Error) { read.call }.message
    end
    assert_equal errors.first, errors.last
  ensure
    FileUtils.rm_rf(dir) if dir
  end

  def test_lost_trials_are_the_same_error_and_none_is_none
    dir = write_run([trial("a", 1)])
    File.delete(File.join(dir, "trials.jsonl"))
    assert_empty PackedTrials.read(RunDir.open(dir)).to_a
    File.write(File.join(dir, "samples.jsonl"), "{\"key\":\"x\",\"t\":0}\n")
    error = assert_raises(Rackbench::Error) { PackedTrials.read(RunDir.open(dir)) }
    assert_match(/trials are lost/, error.message)
  ensure
    FileUtils.rm_rf(dir) if dir
  end

  def test_trials_read_as_hashes_field_by_field
    trials = PackedTrials.new([trial("a", 1), trial("b", 1)])
    assert_equal 2, trials.size
    refute_empty trials
    assert_equal %w[a b], trials.map { |t| t["setup"] }
    assert_equal [RECORDED.dig("machine", "foreign_pct")] * 2, trials.map { |t| t.dig("machine", "foreign_pct") }
    assert_equal [trial("a", 1), trial("b", 1)], trials.map(&:to_h)
  end
end
