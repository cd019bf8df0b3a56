# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/store/packed_records"

# Issue 46: a report holds a huge run's trials packed. What it gives back
# must be the record it was given, and a PackedRef must read as that Hash.
class PackedRecordsTest < Minitest::Test
  Packed = Rackbench::Store::PackedRecords
  RECORDED = File.read(File.expand_path("../../fixtures/store/recorded_trial.jsonl", __dir__)).lines.first

  def odd
    { "a" => nil, "b" => true, "c" => false, "d" => 1.5e-320, "e" => -0.0, "f" => 2**70, "g" => "ü ☃", "h" => [],
      "i" => {}, "j" => [[]], "k" => [1, "x", nil], "l" => [{ "m" => 1 }, { "m" => 2, "n" => [3] }], "o" => [[{ "p" => {} }], 4],
      "q" => { "r" => { "s" => [1, 2] } } }
  end

  def test_a_record_comes_back_equal_in_the_same_order
    packed = Packed.new
    [JSON.parse(RECORDED), odd].each do |record|
      refs = Array.new(3) { packed.add(JSON.parse(JSON.generate(record))) }
      refs.each do |ref|
        assert_equal record, ref.to_h
        assert_equal JSON.pretty_generate(record), JSON.pretty_generate(ref.to_h), "keys in the same order"
      end
    end
  end

  def test_the_record_given_is_left_as_it_was
    record = JSON.parse(RECORDED)
    before = Marshal.load(Marshal.dump(record))
    Packed.new.add(record)
    assert_equal before, record
    refute record["command"].frozen?
  end

  def test_lists_come_back_as_copies
    packed = Packed.new
    ref = packed.add("k" => [1, 2], "h" => { "l" => [3] })
    ref.to_h["k"] << 9
    ref["h"]["l"] << 9
    ref["k"] << 9
    assert_equal({ "k" => [1, 2], "h" => { "l" => [3] } }, ref.to_h)
  end

  def same(expected, actual, message)
    expected.nil? ? assert_nil(actual, message) : assert_equal(expected, actual, message)
  end

  def test_a_ref_reads_as_its_hash
    record = JSON.parse(RECORDED).merge(odd)
    ref = Packed.new.add(JSON.parse(JSON.generate(record)))
    (record.keys + ["nope"]).each do |key|
      same record[key], ref[key], key
      assert_equal record.key?(key), ref.key?(key), key
      same record.fetch(key, :none), ref.fetch(key, :none), key
    end
    [%w[latency_ms p99], %w[machine foreign_pct], %w[queues server busy_threads mean], %w[latency_ms nope], %w[nope x],
     %w[rate x], ["balance", "workers", 0, "cpu_pct"], ["command", 0], ["l", 1, "n", 0], %w[q r s]].each do |path|
      same record.dig(*path), ref.dig(*path), path.inspect
    end
    assert_raises(TypeError) { record.dig("rps", "x") }
    assert_raises(TypeError) { ref.dig("rps", "x") }
    assert_raises(KeyError) { ref.fetch("nope") }
    assert_equal record.keys, ref.keys, "other Hash methods answer as the Hash"
    assert_equal record, ref
    assert_equal ref, record
  end

  def test_past_the_shapes_it_keeps_records_as_they_are
    packed = Packed.new
    refs = Array.new(Packed::MAX_SHAPES + 5) { |i| packed.add("k#{i}" => i, "x" => { "y" => [i] }) }
    refs.each_with_index { |ref, i| assert_equal({ "k#{i}" => i, "x" => { "y" => [i] } }, ref.to_h) }
    assert_equal [refs.size - 1], refs.last.dig("x", "y")
    huge = { "v" => Array.new(Packed::CHUNK + 1) { |i| { "n" => i } } }
    assert_equal huge, packed.add(huge).to_h, "a record of more values than a chunk"
  end

  def test_records_fill_several_chunks
    packed = Packed.new
    record = JSON.parse(RECORDED)
    refs = Array.new((Packed::CHUNK / 100) + 10) { |i| packed.add(record.merge("rps" => i.to_f)) }
    refs.each_with_index { |ref, i| assert_equal record.merge("rps" => i.to_f), ref.to_h }
    assert_equal 5.0, refs[5]["rps"]
  end

  def test_a_cells_trials_are_decoded_once_while_recent
    packed = Packed.new
    cells = Array.new(Packed::RECENT + 1) { |i| [packed.add("rps" => i), packed.add("rps" => -i)] }
    first = Packed.expand(cells[0])
    assert_equal [{ "rps" => 0 }, { "rps" => 0 }], first
    assert_same first, Packed.expand(cells[0])
    cells.drop(1).each { |c| Packed.expand(c) }
    refute_same first, Packed.expand(cells[0]), "decoded again once forgotten"
    plain = [{ "rps" => 1 }]
    assert_same plain, Packed.expand(plain), "Hashes as they are"
    assert_equal [], Packed.expand([])
  end
end
