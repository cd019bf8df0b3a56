# frozen_string_literal: true

require "test_helper"
require "rackbench/runner"

# The progress line's count never passes its total (issue 46, item 9.4: tune
# printed [33/32] to [37/32] when a level was measured again near the
# objective or a probe ran again longer than it had expected).
class RunnerProgressTest < Minitest::Test
  def test_a_search_measuring_more_than_it_expected_raises_the_total
    progress = Rackbench::Runner::Progress.new(30, 32)
    seen = Array.new(7) { [progress.next!, progress.total] }
    assert_equal [[31, 32], [32, 32], [33, 33], [34, 34], [35, 35], [36, 36], [37, 37]], seen
    assert(seen.all? { |done, total| done <= total })
  end
end
