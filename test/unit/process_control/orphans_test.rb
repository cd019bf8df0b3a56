# frozen_string_literal: true

require "test_helper"
require "json"
require "open3"
require "rbconfig"

# Orphans: a child subreaper finds what a child left running by ancestry,
# whatever its environment says. Run in a Ruby of its own, so the test
# process does not become a subreaper for the rest of the suite.
class OrphansTest < Minitest::Test
  LIB = File.expand_path("../../../lib", __dir__)

  SCRIPT = <<~'RUBY'
    require "json"
    require "rackbench/process_control/orphans"
    O = Rackbench::ProcessControl::Orphans
    adopting = O.adopt!
    since = O.now
    # A child that leaves a grandchild with a scrubbed environment, and exits.
    sh = Process.spawn({}, "sh", "-c", "exec 1>&- 2>&-; sleep 30 & exit 0", unsetenv_others: true)
    Process.wait(sh)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 5
    sleep 0.02 until (found = O.adopted(since: since)).any? || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    before = O.adopted(since: O.now + 1000) # started later than anything here
    stopped = O.stop(found, timeout: 1)
    puts JSON.generate(adopting: adopting, found: found.map(&:ppid).uniq == [Process.pid] ? found.size : -1,
                       stopped: stopped, later: before.size, left: O.adopted(since: since).size)
  RUBY

  def test_an_orphan_with_a_scrubbed_environment_is_found_stopped_and_reaped
    out, err, status = Open3.capture3(RbConfig.ruby, "-I", LIB, "-e", SCRIPT)
    assert status.success?, err
    result = JSON.parse(out)
    assert_equal true, result["adopting"], "prctl(PR_SET_CHILD_SUBREAPER) took effect"
    assert_equal 1, result["found"], "the sleep, re-parented to the subreaper: #{out}"
    assert_match(/\A\d+ sleep 30\z/, result["stopped"].first)
    assert_equal 0, result["later"], "since: only what started after it"
    assert_equal 0, result["left"], "stopped and reaped: no longer listed, not even as a zombie"
  end

  # A command adopts orphans for its own length only: called in-process (the
  # suite calls rackbench run many times), it leaves its caller as it was.
  # Left a subreaper, the suite's own process had adopted a later test's
  # "foreign" busy loop, so the noise checks found nothing foreign.
  SCOPED = <<~'RUBY'
    require "json"
    require "rackbench/process_control/orphans"
    O = Rackbench::ProcessControl::Orphans
    states = [O.subreaper?]
    O.adopting { states << O.subreaper? }
    states << O.subreaper?
    puts JSON.generate(states)
  RUBY

  def test_a_command_is_a_subreaper_only_while_it_runs
    out, err, status = Open3.capture3(RbConfig.ruby, "-I", LIB, "-e", SCOPED)
    assert status.success?, err
    assert_equal [false, true, false], JSON.parse(out)
  end
end
