# frozen_string_literal: true

require "test_helper"
require "rackbench/process_control/child"
require "rackbench/system/process_tree"

# capacity checks for foreign load before it measures, as run does
# (Sampling::Noise.check_before_run, from Runner#with_context, which tune
# shares): a busy loop outside rackbench's process tree is named in a
# warning on stderr and in warnings.jsonl.
class CapacityNoiseTest < Minitest::Test
  # Re-parented away from this process (its parent exits at once), in a
  # process group the test owns and stops in teardown.
  FOREIGN_HOG = ["ruby", "-e", "fork { loop { } }"].freeze

  def teardown
    @hog&.stop("KILL", timeout: 1)
    super
  end

  def test_capacity_warns_of_a_foreign_hog_before_measuring
    require_tool!("wrk")
    @hog = Rackbench::ProcessControl::Child.spawn(FOREIGN_HOG)
    assert @hog.wait(10), "the hog's parent exits at once"
    sleep 0.3
    assert(Rackbench::System::ProcessTree.all.any? { |e| e.pgid == @hog.pid }, "the busy loop runs")
    dir = File.join(tmpdir, "cap")
    status, _, err = run_cli("capacity", "--setup", "puma x1:2", "--endpoint", "/hello", "--loop", "closed",
                             "--max-levels", "1", "-d", "1", "--warmup", "0", "-o", dir)
    # A knee is missing only where a setup failed to boot or verify
    # (Search::Capacity#call); foreign load is warned of, not a failure.
    assert_equal 0, status, err
    warning = err.lines.find { |l| l.include?("the machine is not quiet") }
    refute_nil warning, err
    assert_match(/other processes used \d+% of a core over \d\.\d s: .*\bruby\b/, warning)
    assert_operator err.index("not quiet"), :<, err.index("booting") || err.size, "before the first boot"
    assert_match(/the machine is not quiet/, File.read(File.join(dir, "warnings.jsonl")))
  end
end
