# frozen_string_literal: true

require "test_helper"
require "json"

# rackbench compare on two real runs: an A/B of Puma at 2 and at 5 threads
# on /pause/0.05, where the throughput must differ (40 vs 100 req/s): B is
# decided slower, unpaired, and the gate fails on it. Each run stored its
# CPU-speed calibrations, one at its start and one at its end.
class CompareRunsTest < Minitest::Test
  def run_of(setup)
    dir = File.join(tmpdir, setup.tr(" :", "__"))
    status, _out, err = run_cli("run", "-s", setup, "-e", "/pause/0.05", "-c", "5", "-d", "1", "--warmup", "0", "-r", "3",
                                "-q", "-o", dir)
    assert_equal 0, status, err
    calibrations = File.readlines(File.join(dir, "calibration.jsonl")).map { |l| JSON.parse(l) }
    assert_equal %w[start end], calibrations.map { |c| c["phase"] }
    assert(calibrations.all? { |c| c["iterations_per_cpu_s"].positive? }, calibrations.inspect)
    dir
  end

  def test_flags_the_thread_count_change_and_gates_on_it
    a = run_of("puma x1:5")
    b = run_of("puma x1:2")
    status, out, err = run_cli("compare", a, b)
    assert_equal 0, status, err
    assert_match(/Pairing RUN_B's setup "puma x1:2" with RUN_A's "puma x1:5"/, out)
    assert_match(/^Method: two runs made at different times cannot be paired/, out)
    rps_line = out.lines.find { |l| l =~ /req\/s/ && l =~ /puma x1:5/ }
    # 38 against 95 req/s, said as the ratio (0.4x); a change under 50% would be said in percent.
    assert_match(%r{slower(?:: B/A 0\.\d+x| by \d+%) \(95% CI}, rps_line.to_s, out)
    status, _out, err = run_cli("compare", a, b, "--fail-if-slower", "20")
    assert_equal 1, status
    assert_match(/\ASlower: #{b} is decided slower than #{a} by more than 20% in 1 cell/, err)
  end
end
