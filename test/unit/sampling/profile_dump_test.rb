# frozen_string_literal: true

require "test_helper"
require "rackbench/sampling/profile_dump"

# A process's dump (runtime/in_server_profile.rb's format) read as profiles.jsonl stores it.
class ProfileDumpTest < Minitest::Test
  ROOT = "/run/refs/HEAD/app"
  TEXT = <<~DUMP
    pid=42 samples=10 missed=0 interval_us=1000 wall_s=1.5 cpu_s=0.031 alloc=900 gc_count=2 gc_minor=2 gc_major=0 gc_time_ms=
    6\t9\tFibonacci.fib\t#{ROOT}/app/fibonacci.rb
    1\t1\tblock in Fibonacci.fib\t#{ROOT}/app/fibonacci.rb
    2\t2\tBlock#x\t#{ROOT}/app/fibonacci.rb
    1\t3\tPuma::Server#process_client\t/srv/vendor/bundle/ruby/3.1.0/gems/puma-8.0.2/lib/puma/server.rb
    1\t1\t(garbage collection)\t
    0\t5\tApp#call\t#{ROOT}/app.rb
  DUMP

  def test_figures_and_frames_named_the_same_on_every_side
    dump = Rackbench::Sampling::ProfileDump.parse(TEXT, root: ROOT)
    assert_equal 42, dump["pid"]
    assert_in_delta 0.031, dump["cpu_s"]
    assert_nil dump["gc_time_ms"]
    assert_equal [["Fibonacci.fib", "app/fibonacci.rb", 6, 9], ["Block#x", "app/fibonacci.rb", 2, 2],
                  ["block in Fibonacci.fib", "app/fibonacci.rb", 1, 1],
                  ["Puma::Server#process_client", "gems/puma-8.0.2/lib/puma/server.rb", 1, 3],
                  ["(garbage collection)", "", 1, 1]], dump["frames"]
  end

  def test_a_frame_at_two_lines_is_one_frame
    text = "pid=1 samples=3\n2\t2\tA#b\t#{ROOT}/a.rb\n1\t1\tA#b\t#{ROOT}/a.rb\n"
    assert_equal [["A#b", "a.rb", 3, 3]], Rackbench::Sampling::ProfileDump.parse(text, root: ROOT)["frames"]
  end

  def test_stacks_are_kept_root_first_with_their_frames_named_as_frames_are
    text = "pid=1 samples=9\n0\t9\tApp#call\t#{ROOT}/app.rb\n5\t5\tA#b\t#{ROOT}/a.rb\n" \
           "3\t3\tA#b\t#{ROOT}/a.rb\n1\t1\t(garbage collection)\t\n" \
           "s\t5\t0,1\ns\t3\t0,2\ns\t1\t3\ns\t2\t\ns\t4\t0,7\n"
    dump = Rackbench::Sampling::ProfileDump.parse(text, root: ROOT)
    assert_equal [["App#call", "app.rb"], ["A#b", "a.rb"], ["(garbage collection)", ""]], dump["stack_frames"]
    assert_equal [[5, [0, 1]], [3, [0, 1]], [1, [2]], [2, []]], dump["stacks"], "a frame index past the frames: the stack dropped"
    assert_equal [["A#b", "a.rb", 8, 8], ["(garbage collection)", "", 1, 1]], dump["frames"]
  end

  def test_a_dump_without_stacks_has_no_stack_keys
    refute Rackbench::Sampling::ProfileDump.parse(TEXT, root: ROOT).key?("stacks")
  end
end
