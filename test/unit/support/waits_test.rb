# frozen_string_literal: true

require "test_helper"

# The suite's waits (test/support/waits.rb) fail with what they waited for,
# and a command past its deadline leaves nothing of its process group.
class WaitsTest < Minitest::Test
  def test_wait_until_returns_the_blocks_value
    calls = 0
    assert_equal :done, wait_until(deadline: 5, what: "the third call", every: 0) { (calls += 1) == 3 && :done }
    assert_equal 3, calls
  end

  def test_wait_until_fails_naming_what_it_waited_for
    e = assert_raises(Minitest::Assertion) { wait_until(deadline: 0.1, what: "a thing that never comes", every: 0.01) { false } }
    assert_equal "waited 0.1 s for a thing that never comes; it did not happen", e.message
  end

  def test_capture_with_timeout_returns_what_capture3_does
    out, err, status = capture_with_timeout(RbConfig.ruby, "-e", "print $stdin.read.upcase; warn :e; exit 3",
                                            stdin_data: "in", timeout: 30)
    assert_equal ["IN", "e\n", 3], [out, err, status.exitstatus]
  end

  # A shell that starts a grandchild and hangs: at the deadline the group is
  # killed (the grandchild too) and the test fails naming the command.
  def test_capture_with_timeout_kills_the_group_and_fails_naming_the_command
    pid_file = File.join(tmpdir, "grandchild.pid")
    script = "sleep 60 & echo $! > #{pid_file}; echo started; wait"
    e = assert_raises(Minitest::Assertion) { capture_with_timeout("sh", "-c", script, timeout: 0.5) }
    assert_match(/\Ash -c sleep 60 .* did not finish within 0.5 s \(its process group was killed\)\nstdout: started\n/, e.message)
    grandchild = Integer(File.read(pid_file))
    gone = wait_until(deadline: 5, what: "the grandchild #{grandchild} to be gone") { !alive?(grandchild) }
    assert gone
  end

  def alive?(pid)
    stat = File.read("/proc/#{pid}/stat")
    stat[stat.rindex(")") + 2] != "Z"
  rescue Errno::ENOENT
    false
  end
end
