# frozen_string_literal: true

require "test_helper"
require "json"
require "tmpdir"
require "stringio"
require "rackbench/process_control/child"
require "rackbench/process_control/registry"
require "rackbench/store/run_dir"
require "rackbench/cli/measuring"

# processes.jsonl is written by the measuring frame alone, for the frame's
# run (issue 45: RunDir#lock! set a global journal that outlived it): a
# child started inside CLI::Measuring#call is written down with its stop; a
# child started after the frame, or beside a run directory merely locked,
# is not.
class JournalingTest < Minitest::Test
  Child = Rackbench::ProcessControl::Child
  Registry = Rackbench::ProcessControl::Registry

  def events(dir)
    file = File.join(dir, "processes.jsonl")
    File.file?(file) ? File.foreach(file).map { |l| JSON.parse(l).values_at("event", "pid") } : []
  end

  def sleeper
    Child.spawn(["sleep", "30"])
  end

  def test_the_frame_journals_its_children_and_no_one_else
    Dir.mktmpdir do |tmp|
      frame = Rackbench::CLI::Measuring.new(command: "run", argv: [], err: StringIO.new, quiet: true)
      inside = nil
      dir = frame.call(out: File.join(tmp, "run")) do |store, _listener|
        inside = sleeper
        inside.stop("TERM", timeout: 2)
        store.path
      end
      assert_equal [["start", inside.pid], ["stop", inside.pid]], events(dir).select { |_, pid| pid == inside.pid }

      after = sleeper
      after.stop("TERM", timeout: 2)
      refute_includes events(dir).map(&:last), after.pid, "a child started after the frame was journaled into its run"

      locked = Rackbench::Store::RunDir.new(File.join(tmp, "locked"))
      FileUtils.mkdir_p(locked.path)
      locked.lock!("test")
      child = sleeper
      child.stop("TERM", timeout: 2)
      locked.unlock
      assert_empty events(locked.path), "locking a run directory set a journal"
    end
  end

  def test_journaling_puts_back_the_journal_before_it_when_the_block_raises
    Dir.mktmpdir do |tmp|
      outer = Rackbench::ProcessControl::Journal.new(File.join(tmp))
      Registry.journaling(outer) do
        assert_raises(RuntimeError) { Registry.journaling(nil) { raise "boom" } }
        child = sleeper
        child.stop("TERM", timeout: 2)
        assert_equal [["start", child.pid], ["stop", child.pid]], events(tmp)
      end
    end
  end
end
