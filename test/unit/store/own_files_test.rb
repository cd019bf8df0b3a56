# frozen_string_literal: true

require "test_helper"
require "rackbench/store/run_dir"

# A writer refuses a run directory with a link where its own files or
# folders belong (issue 46), and report -o knows the run's files by inode.
class OwnFilesTest < Minitest::Test
  OF = Rackbench::Store::OwnFiles
  OWN = Rackbench::Store::RunDir::OWN

  def setup
    @dir = tmpdir
    FileUtils.mkdir_p(File.join(@dir, "logs", "puma_x1_2-r1"))
    File.write(File.join(@dir, "trials.jsonl"), "{}\n")
    @victim = File.join(tmpdir, "victim")
    FileUtils.mkdir_p(@victim)
  end

  def refused(path)
    e = assert_raises(Rackbench::Error) { OF.check!(@dir, OWN) }
    assert_match(/\A#{Regexp.escape(path)} is a symbolic link; rackbench writes no run file through a link .*: remove it and run again\z/,
                 e.message)
  end

  def test_a_clean_run_directory_passes
    assert_nil OF.check!(@dir, OWN)
  end

  def test_a_link_in_place_of_a_run_file_is_refused
    %w[.rackbench.lock warnings.jsonl processes.jsonl].each do |name|
      path = File.join(@dir, name)
      File.symlink(File.join(@victim, "x"), path)
      refused(path)
      File.delete(path)
    end
  end

  def test_a_link_in_place_of_a_folder_or_under_logs_is_refused
    %w[logs tls refs].each do |name|
      path = File.join(@dir, name)
      FileUtils.rm_rf(path)
      File.symlink(@victim, path)
      refused(path)
      File.delete(path)
    end
    FileUtils.mkdir_p(File.join(@dir, "logs", "puma_x1_2-r1"))
    path = File.join(@dir, "logs", "puma_x1_2-r1", "server.log")
    File.symlink(File.join(@victim, "x"), path)
    refused(path)
  end

  def test_a_character_device_at_the_files_own_path_passes
    skip "mknod needs root" unless Process.uid.zero?
    path = File.join(@dir, "trials.jsonl")
    File.delete(path)
    assert system("mknod", path, "c", "1", "7"), "mknod"
    assert_nil OF.check!(@dir, OWN)
  end

  def test_same_file_finds_a_run_file_under_another_name
    trials = File.join(@dir, "trials.jsonl")
    log = File.join(@dir, "logs", "puma_x1_2-r1", "server.log")
    File.write(log, "booted\n")
    outside = tmpdir
    File.link(trials, File.join(outside, "hard.csv"))
    File.link(log, File.join(outside, "log.txt"))
    File.symlink(trials, File.join(outside, "soft.csv"))
    File.write(File.join(outside, "other.csv"), "{}\n")
    assert_equal trials, OF.same_file(@dir, OWN, File.join(outside, "hard.csv"))
    assert_equal trials, OF.same_file(@dir, OWN, File.join(outside, "soft.csv"))
    assert_equal log, OF.same_file(@dir, OWN, File.join(outside, "log.txt"))
    assert_nil OF.same_file(@dir, OWN, File.join(outside, "other.csv"))
    assert_nil OF.same_file(@dir, OWN, File.join(outside, "missing.csv"))
    File.write(File.join(@dir, "summary.md"), "a rendering\n")
    assert_nil OF.same_file(@dir, OWN, File.join(@dir, "summary.md")), "a rendering of the run's is not one of its files"
  end
end
