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

  def test_no_plan_past_the_shapes
    packed = Packed.new
    Array.new(Packed::MAX_SHAPES - 1) { |i| packed.add("k#{i}" => i) }
    records = Array.new(Packed::SAMPLE * 3) { |i| JSON.parse(RECORDED).merge("rps" => i * 1.0) }
    refs = records.map { |r| packed.add(r) }
    refs.zip(records).each { |ref, record| assert_equal record, ref.to_h }
  end

  def test_records_fill_several_chunks
    packed = Packed.new
    record = JSON.parse(RECORDED)
    refs = Array.new((Packed::CHUNK / 100) + 10) { |i| packed.add(record.merge("rps" => i.to_f)) }
    refs.each_with_index { |ref, i| assert_equal record.merge("rps" => i.to_f), ref.to_h }
    assert_equal 5.0, refs[5]["rps"]
  end

  # Values that differ from record to record (a trial's key, start time and
  # figures) and values that take a few values (a setup's name, a flag, a
  # count that stays 0, an empty list), with the odd one out now and then:
  # a plan codes the few, and every record reads back as it was.
  def varied(i)
    record = JSON.parse(RECORDED)
    record.merge!("key" => "k#{i}", "started_at" => "t#{i} ☃" * (1 + (i % 3)), "rps" => i * 1.5, "setup" => "s#{i % 3}",
                  "concurrency" => [1, 8][i % 2], "notes" => i % 97 == 5 ? ["note #{i}"] : [], "rate" => i == 300 ? 2**70 : nil,
                  "error_rate" => i == 301 ? -0.0 : 0.0, "log" => i == 302 ? "x".b * 10 : "l#{i}.log",
                  "command" => ["wrk", "-c", (i % 4).to_s, "http://h/#{i}"], "warnings" => i == 303 ? ["y" * 5000] : [])
    record["latency_ms"]["p99"] = i == 304 ? 1.5e-320 : i / 7.0
    record["errors"]["read"] = i % 150 == 7 ? i : 0
    record
  end

  def test_records_a_plan_codes_come_back_equal
    packed = Packed.new
    records = Array.new(700) { |i| varied(i) }
    refs = records.map { |r| packed.add(Marshal.load(Marshal.dump(r))) }
    refs.zip(records).each_with_index do |(ref, record), i|
      assert_equal record, ref.to_h, "record #{i}"
      assert_equal JSON.generate(record), JSON.generate(ref.to_h), "record #{i}, same order and types"
      %w[key setup concurrency notes rate error_rate log command warnings started_at].each do |key|
        same record[key], ref[key], "record #{i} #{key}"
      end
      same record.dig("latency_ms", "p99"), ref.dig("latency_ms", "p99"), "record #{i}"
      same record.dig("errors", "read"), ref.dig("errors", "read"), "record #{i}"
      same record.dig("queues", "server", "kind"), ref.dig("queues", "server", "kind"), "record #{i}"
    end
    assert_equal Encoding::BINARY, refs[302]["log"].encoding
    assert(refs[301]["error_rate"].to_s == "-0.0")
  end

  # A record's place in the chunks of values: how many values it keeps.
  def kept(refs)
    places = refs.map { |r| r.instance_variable_get(:@handle) >> Packed::SHAPE_BITS }
    places.each_cons(2).map { |a, b| b - a }
  end

  def test_a_plan_keeps_fewer_values
    packed = Packed.new
    refs = Array.new(400) { |i| packed.add(varied(i)) }
    plain, coded = kept(refs).values_at(0, -1)
    assert_operator coded, :<, plain / 2, "values kept a record: #{plain} before a plan, #{coded} after"
  end

  def test_groups_of_records_each_get_a_plan
    packed = Packed.new
    records = Array.new(1200) do |i|
      record = varied(i)
      group = i / 200 % 3 # setups run one after the other, each its own threads and kind
      record.merge("setup" => "s#{group}", "threads" => group * 4, "server" => %w[puma unicorn falcon][group])
    end
    refs = records.map { |r| packed.add(r) }
    refs.zip(records).each { |ref, record| assert_equal record, ref.to_h }
    plain = kept(refs.first(2)).first
    assert_operator kept(refs).count { |n| n < plain / 2 }, :>, 850, "records a plan took (of 1,200)"
  end

  # A run's rounds, one after the other: the first 64 records are all
  # round 1, and each plan after codes the rounds met so far.
  def test_rounds_met_later_are_coded_too
    packed = Packed.new
    records = Array.new(1400) { |i| varied(i).merge("repetition" => (i / 100) + 1) }
    refs = records.map { |r| packed.add(r) }
    refs.zip(records).each { |ref, record| assert_equal record, ref.to_h }
    plain = kept(refs.first(2)).first
    assert_operator kept(refs.last(500)).count { |n| n < plain / 2 }, :>, 450, "records of rounds 10 to 14 a plan took"
  end

  # Values that are equal but not the same (0.0 and -0.0, two Bignums)
  # among those a plan codes read back as they were.
  def test_equal_values_a_plan_codes_stay_apart
    packed = Packed.new
    records = Array.new(300) do |i|
      { "z" => i.odd? ? -0.0 : 0.0, "b" => [2**70, 2**70 + 1][i % 2], "n" => i, **(1..10).to_h { |k| ["c#{k}", i % 2] } }
    end
    refs = records.map { |r| packed.add(r) }
    refs.zip(records).each { |ref, record| assert_equal JSON.generate(record), JSON.generate(ref.to_h) }
    assert_equal "-0.0", refs[299]["z"].to_s
  end

  def test_lists_past_a_chunk_and_lists_of_lists
    packed = Packed.new
    long = Array.new(Packed::CHUNK + 3) { |i| i.odd? ? i : "v#{i % 5}" }
    records = [{ "a" => long, "b" => [[1, [2]], [], "x"] }, { "a" => [1], "b" => [] }, { "a" => long.reverse, "b" => [nil] }]
    refs = records.map { |r| packed.add(r) }
    refs.zip(records).each { |ref, record| assert_equal record, ref.to_h }
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
