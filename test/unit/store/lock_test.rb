# frozen_string_literal: true

require "test_helper"
require "rackbench/store/run_dir"

# One writer per run directory (Store::Lock).
class LockTest < Minitest::Test
  RunDir = Rackbench::Store::RunDir

  def test_a_second_writer_is_refused_with_the_holders_pid_and_command
    store = RunDir.create(File.join(tmpdir, "run"), command: "rackbench run --out run")
    store.write_meta("plan" => {})
    e = assert_raises(Rackbench::Error) { RunDir.open(store.path).lock!("rackbench run --resume run") }
    assert_match(/is being written by another rackbench \(pid #{Process.pid}: rackbench run --out run\)/, e.message)
    e = assert_raises(Rackbench::Error) { RunDir.create(store.path) }
    assert_match(/is being written by another rackbench \(pid #{Process.pid}/, e.message)
  ensure
    store&.unlock
  end

  def test_the_lock_is_free_again_once_released
    store = RunDir.create(File.join(tmpdir, "run"), command: "rackbench run --out run")
    store.write_meta("plan" => {})
    refute_nil Rackbench::Store::Lock.busy(store.path), "held while the first writer writes"
    store.unlock
    assert_nil Rackbench::Store::Lock.busy(store.path), "released: no writer named"
    other = RunDir.open(store.path).lock!("rackbench run --resume")
    assert_equal "#{Process.pid}\nrackbench run --resume\n", File.read(File.join(store.path, Rackbench::Store::Lock::FILE)),
                 "the new writer names itself"
    assert(File.open(File.join(store.path, Rackbench::Store::Lock::FILE)) { |f| !f.flock(File::LOCK_EX | File::LOCK_NB) },
           "the new writer holds the lock")
  ensure
    other&.unlock
  end

  def test_a_killed_holder_leaves_no_lock_behind
    dir = File.join(tmpdir, "run")
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      RunDir.create(dir, command: "child")
      writer.puts "locked"
      sleep 30
    end
    writer.close
    assert_equal "locked", reader.gets&.strip
    assert_match(/pid #{pid}: child/, Rackbench::Store::Lock.busy(dir))
    Process.kill("KILL", pid)
    Process.wait(pid)
    assert_nil Rackbench::Store::Lock.busy(dir)
    RunDir.create(dir, command: "after").unlock
  ensure
    reader&.close
  end
end
