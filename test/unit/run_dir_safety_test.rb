# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/config"
require "rackbench/runner/measurement"
require "rackbench/process_control/error_line"

# Smaller promises of the run directory: bounded file names, no duplicate
# setups folded into repetitions, log tails read from the end only.
class RunDirSafetyTest < Minitest::Test
  def test_a_long_endpoint_gives_a_bounded_unique_file_name
    long = "puma x2:5|/pause/0.05?#{'q=x&' * 100}|8|1"
    other = long.sub("q=x&q", "q=y&q")
    slug = Rackbench::Runner::Measurement.slug(long)
    assert_operator slug.bytesize, :<=, Rackbench::Runner::Measurement::SLUG_MAX
    refute_equal slug, Rackbench::Runner::Measurement.slug(other)
    File.write(File.join(tmpdir, "#{slug}.wrk.log"), "ok") # creatable
    assert_equal "puma_x2_5_hello_8_1", Rackbench::Runner::Measurement.slug("puma x2:5|/hello|8|1")
  end

  # Issue 46, G26: names that differ only in letters a file name cannot
  # keep (run --ref café --ref cafè, one commit) get log names of their own.
  def test_labels_differing_only_in_non_ascii_letters_get_their_own_log_names
    slug = ->(text) { Rackbench::Runner::Measurement.slug(text) }
    pairs = [%w[café@3276a39 cafè@3276a39], ["puma x1:2 café@3276a39|/work|1|1", "puma x1:2 cafè@3276a39|/work|1|1"],
             %w[naïve@1a2b3c4 nave@1a2b3c4]]
    pairs.each do |a, b|
      refute_equal slug.call(a), slug.call(b), "#{a} and #{b}"
      assert_match(/\A[A-Za-z0-9._-]+\z/, slug.call(a))
      assert_equal slug.call(a), slug.call(a.dup), "the same label, the same name (a resumed run finds its logs)"
    end
    assert_equal "puma_x2_5_main_1a2b3c4", slug.call("puma x2:5 main@1a2b3c4"), "ASCII labels keep their names"
  end

  def test_a_setup_given_twice_is_refused
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(setups: ["puma x2:5", "unicorn x2", "puma x2:5"]) }
    assert_equal 'setup "puma x2:5" is given twice; give it once and use --repeat N for rounds (or tag each to measure ' \
                 'it under two names: "puma x2:5 #a" and "puma x2:5 #b")', e.message
    tagged = Rackbench::Config.build(setups: ["puma x2:5 #a", "puma x2:5 #b"])[:setups]
    assert_equal ["puma x2:5 #a", "puma x2:5 #b"], tagged.map(&:label), "an A/A pair under two names"
    assert_equal [2, 5], [tagged[0].workers, tagged[1].threads]
  end

  def test_a_huge_log_is_read_from_its_end_only
    path = File.join(tmpdir, "server.log")
    File.open(path, "w") do |f|
      200_000.times { |i| f.puts "GET /hello #{i}" }
      f.puts "ArgumentError: the real reason"
    end
    assert_operator File.size(path), :>, 3_000_000
    tail = Rackbench::ProcessControl::ErrorLine.tail(path, 2)
    assert_equal "GET /hello 199999\nArgumentError: the real reason", tail
    assert_operator Rackbench::ProcessControl::ErrorLine.tail_text(path).bytesize, :<=, Rackbench::ProcessControl::ErrorLine::TAIL_BYTES
  end
end
