# frozen_string_literal: true

require "test_helper"
require "rackbench/units"

class UnitsTest < Minitest::Test
  Units = Rackbench::Units

  def test_memory_in_binary_units_whatever_the_spelling
    assert_equal 2048.0, Units.mebibytes("2GiB")
    assert_equal 512.0, Units.mebibytes("512MiB")
    assert_equal 2048.0, Units.mebibytes("2G")
    assert_equal 1500.0, Units.mebibytes("1500M")
    assert_equal 2048.0, Units.mebibytes("2GB"), "GB is read as GiB (binary), as memory is sold"
    assert_equal 1536.0, Units.mebibytes("1.5 gib")
    assert_equal 1024.0 * 1024, Units.mebibytes("1TiB")
  end

  def test_bad_memory_names_the_value_and_the_accepted_forms
    ["2 gigs", "1500", "-1G", "0M", "", "2GiBs", "G"].each do |bad|
      e = assert_raises(Rackbench::UsageError) { Units.mebibytes(bad) }
      assert_equal "--memory-budget #{bad.inspect}: write 2GiB, 512MiB, 2G or 1500M (binary units: G = GiB = 2^30 bytes)", e.message
      assert_equal 1, e.message.lines.size
    end
  end

  def test_durations
    assert_equal 1200.0, Units.seconds("20m")
    assert_equal 90.0, Units.seconds("90s")
    assert_equal 3600.0, Units.seconds("1h")
    assert_equal 600.0, Units.seconds("600")
    assert_equal 300.0, Units.millis("300ms")
    assert_equal 500.0, Units.millis("0.5s")
    e = assert_raises(Rackbench::UsageError) { Units.seconds("soon") }
    assert_match(/--time-budget "soon": write a duration of at least 1 s such as 10m, 90s or 1h/, e.message)
    assert_raises(Rackbench::UsageError) { Units.seconds("5s", min: 10) }
    assert_raises(Rackbench::UsageError) { Units.millis("fast") }
  end

  def test_counts
    assert_equal [1, 3, 5], Units.counts("5,1,3,3", flag: "--puma-threads")
    e = assert_raises(Rackbench::UsageError) { Units.counts("1,x", flag: "--puma-threads") }
    assert_match(/--puma-threads "1,x": write whole numbers from 1 to 1024/, e.message)
  end

  # A bare number is in the caller's unit: seconds for a budget, ms for a p99.
  def test_bare_numbers_take_the_callers_unit
    assert_equal 500.0, Units.millis("500")
    assert_equal 120.0, Units.seconds("120")
    assert_raises(Rackbench::UsageError) { Units.millis("0") }
  end

  def test_percent
    assert_equal 0.1, Units.percent("0.1%")
    assert_equal 5.0, Units.percent("5")
    e = assert_raises(Rackbench::UsageError) { Units.percent("101") }
    assert_equal '--max-errors "101": write a percentage such as 0.1', e.message
  end

  # The parsers Config::Values and the flags' declarations share.
  def test_numbers_and_whole_numbers
    assert_equal 0.5, Units.number("0.5", flag: "--duration", min: 0.5)
    e = assert_raises(Rackbench::UsageError) { Units.number("0x10", flag: "--duration", min: 0.5) }
    assert_equal '--duration must be a number of seconds >= 0.5 (got "0x10")', e.message
    e = assert_raises(Rackbench::UsageError) { Units.number("1e9", flag: "-d") }
    assert_match(/\A-d "1e9" is over a day \(86400 s\)/, e.message)
    assert_equal 1e9, Units.number("1e9", flag: "--rate", capped: false)
    e = assert_raises(Rackbench::UsageError) { Units.number(0, flag: "--boot-timeout", above: 0.1, fails: "boot") }
    assert_equal "--boot-timeout must be a number of seconds above 0, at least 0.1 (got 0): a shorter timeout fails every boot", e.message
    e = assert_raises(Rackbench::UsageError) { Units.number("x", flag: "--warmup", word: "steady") }
    assert_equal '--warmup must be a number of seconds >= 0 or "steady" (got "x")', e.message
    assert_equal 3, Units.count("3", flag: "--repeat")
    e = assert_raises(Rackbench::UsageError) { Units.count(3.0, flag: "--port", max: 65_535) }
    assert_equal "--port must be a whole number from 1 to 65535 (got 3.0)", e.message
    assert_nil Units.whole("3.0")
    assert_equal 7, Units.whole("7")
  end

  def test_margin_words_paths_and_urls
    assert_equal 0.05, Units.margin_percent("5%")
    e = assert_raises(Rackbench::UsageError) { Units.margin_percent("0") }
    assert_equal "--margin must be a percentage above 0 and below 100, e.g. 5 for +-5% (got 0%)", e.message
    assert_equal "off", Units.choice("OFF", %w[on off], flag: "--aslr")
    assert_equal [301, 302], Units.statuses("301,302")
    assert_equal "/a%20b", Units.endpoint(" /a%20b ")
    assert_match(/write it percent-encoded \(%20\), e\.g\. --endpoint \/a%20b/,
                 assert_raises(Rackbench::UsageError) { Units.endpoint("/a b") }.message)
    assert_equal ["http://127.0.0.1:80", "/x?y=1"], Units.url("http://127.0.0.1/x?y=1")
    assert_match(/--url "http:\/\/u:\*+@h#f" must be an http:\/\/ URL/,
                 assert_raises(Rackbench::UsageError) { Units.url("http://u:secret@h#f") }.message)
  end
end
