# frozen_string_literal: true

require "test_helper"
require "open3"
require "rackbench/plan/file"

class PlanFileTest < Minitest::Test
  def write_plan(text)
    path = File.join(tmpdir, "plan.rb")
    File.write(path, text)
    path
  end

  def test_reads_the_dsl
    path = write_plan(<<~RUBY)
      setup "puma x2:5"
      setup "unicorn x2"
      endpoints "/hello", "/pause/0.05"
      concurrency 1, 4, 16
      duration 3
      repeat 2
    RUBY
    s = Rackbench::PlanFile.load(path)
    assert_equal ["puma x2:5", "unicorn x2"], s[:setups]
    assert_equal ["/hello", "/pause/0.05"], s[:endpoints]
    assert_equal [1, 4, 16], s[:concurrency]
    assert_equal 3, s[:duration]
    assert_equal 2, s[:repeat]
  end

  # Process.exit! and Kernel.exit! in a plan file (issue 46, item 8): one
  # line, not rackbench gone at once with no word. In a child Ruby: exit!
  # acts on the process.
  def test_process_exit_bang_is_one_line_not_a_silent_exit
    lib = File.expand_path("../../../lib", __dir__)
    { "setup \"puma x1:1\"\nProcess.exit!(5)\n" => "plan.rb:2 calls Process.exit!",
      "Kernel.exit!\n" => "plan.rb:1 calls Kernel.exit!" }.each do |text, said|
      path = write_plan(text)
      script = 'begin; Rackbench::PlanFile.load(ARGV[0]); rescue Rackbench::UsageError => e; puts e.message; exit 2; end; ' \
               'Process.exit!(0) if Process.respond_to?(:exit!); exit 3'
      out, status = Open3.capture2e(RbConfig.ruby, "-I#{lib}", "-rrackbench/error", "-rrackbench/plan/file", "-e", script, path)
      assert_equal 2, status.exitstatus, out
      assert_equal "plan file #{path.delete_suffix('plan.rb')}#{said}; a plan file only sets settings (setup, endpoint, concurrency ...)\n", out
    end
  end

  def test_unknown_keyword_names_line_and_suggestion
    e = assert_raises(Rackbench::UsageError) { Rackbench::PlanFile.load(write_plan("setup \"thin\"\nconcurency 1\n")) }
    assert_match(/plan\.rb:2: unknown keyword "concurency" \(did you mean "concurrency"\?\)/, e.message)
    assert_match(/accepted: .*duration/, e.message)
  end

  def test_syntax_error_is_one_line
    e = assert_raises(Rackbench::UsageError) { Rackbench::PlanFile.load(write_plan("setup \"thin\"\nduration 1,\n")) }
    assert_match(/plan\.rb:\d+ has a Ruby syntax error/, e.message)
    assert_equal 1, e.message.lines.size
  end

  def test_wrong_types_are_caught_by_validation
    settings = Rackbench::PlanFile.load(write_plan("duration \"soon\"\n"))
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(settings) }
    assert_match(/--duration must be a number of seconds/, e.message)
  end

  def test_expect_status_takes_one_or_more_codes
    settings = Rackbench::PlanFile.load(write_plan("expect_status 301, 302\n"))
    assert_equal [301, 302], Rackbench::Config.build(settings)[:expect_status]
  end

  def test_missing_file_and_raising_file
    assert_match(/cannot read plan file/, assert_raises(Rackbench::UsageError) { Rackbench::PlanFile.load("/nonexistent/plan.rb") }.message)
    e = assert_raises(Rackbench::UsageError) { Rackbench::PlanFile.load(write_plan("\nraise 'boom'\n")) }
    assert_match(/plan\.rb:2 raised RuntimeError: boom/, e.message)
  end

  # Files that are not plans get one line each (exit 2 at the CLI), never a
  # crash, a Bundler backtrace, a silent exit or the quick plan.
  def test_binary_missing_require_exit_and_empty_plans_are_refused
    dir = tmpdir
    cases = { "bin.rb" => ["\x7FELF\x02\x01\x00\xFF\xFE".b, /is not text \(a binary byte at offset \d+\)/],
              "req.rb" => [%(require "nope_not_here"\n), /:1 requires what cannot be loaded: cannot load such file -- nope_not_here/],
              "exit.rb" => ["exit 0\n", /calls exit; a plan file only sets settings/],
              "empty.rb" => ["", /sets nothing/],
              "comment.rb" => ["# nothing yet\n", /sets nothing/] }
    cases.each do |name, (text, message)|
      path = File.join(dir, name)
      File.binwrite(path, text)
      error = assert_raises(Rackbench::UsageError, name) { Rackbench::PlanFile.load(path) }
      assert_match message, error.message
      assert_match(/\Aplan file #{Regexp.escape(path)}/, error.message)
      status, _out, err = run_cli("run", path)
      assert_equal 2, status, name
      assert_equal 1, err.lines.size, err
    end
  end
end
