# frozen_string_literal: true

require "test_helper"
require "json"
require "fileutils"

# A full disk stops a run with one clear line and exit 1; the trials
# completed before it stay readable (no half line). A real full disk: a
# small tmpfs (needs root; skipped otherwise, and the unit test
# RunDirTest#test_a_failed_append_leaves_no_half_line simulates ENOSPC).
class FullDiskTest < Minitest::Test
  SIZE = "48k"

  def with_tmpfs
    dir = tmpdir
    skip "needs root to mount a tmpfs" unless Process.uid.zero?
    skip "cannot mount a tmpfs here" unless system("mount", "-t", "tmpfs", "-o", "size=#{SIZE}", "tmpfs", dir,
                                                   out: File::NULL, err: File::NULL)
    begin
      yield dir
    ensure
      system("umount", dir)
    end
  end

  def test_a_full_disk_stops_the_run_with_one_line_and_keeps_the_trials
    with_tmpfs do |disk|
      out = File.join(disk, "run")
      status, _out, err = run_cli("run", "--engine", "fake", "--url", "http://127.0.0.1:9", "--no-verify", "-e", "/a",
                                  "-c", (1..40).to_a.join(","), "-r", "20", "-d", "1", "--warmup", "0", "-q", "-o", out)
      assert_equal 1, status, err
      assert_equal 1, err.lines.size, err
      assert_match(/\AError: .*No space left on device.*; completed trials are kept in #{Regexp.escape(out)} \(rackbench run --resume/, err)
      trials = File.readlines(File.join(out, "trials.jsonl"))
      assert_operator trials.size, :>, 0
      assert(trials.all? { |l| l.end_with?("\n") && JSON.parse(l).is_a?(Hash) }, "every stored line is whole")
    end
  end
end
