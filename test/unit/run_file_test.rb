# frozen_string_literal: true

require "test_helper"
require "rackbench/run_file"

# Rackbench::RunFile never writes through a link put where a run file
# belongs (issue 46: a linked .rackbench.lock overwrote any file the user
# could write), and never blocks on a FIFO.
class RunFileTest < Minitest::Test
  RF = Rackbench::RunFile

  def setup
    @dir = tmpdir
    @victim = File.join(tmpdir, "victim.txt")
    File.write(@victim, "precious\n")
  end

  def link(name, to = @victim)
    File.join(@dir, name).tap { |path| File.symlink(to, path) }
  end

  def refusal(path)
    "#{path} is a symbolic link; rackbench writes no run file through a link (it would overwrite what the link " \
      "leads to): remove it and run again"
  end

  def test_an_append_or_a_lock_through_a_link_is_refused_in_one_line
    [RF::APPEND, File::RDWR | File::CREAT].each do |flags|
      path = link("samples-#{flags}.jsonl")
      e = assert_raises(Rackbench::Error) { RF.open(path, flags) { |f| f.write("x") } }
      assert_equal refusal(path), e.message
    end
    assert_raises(Rackbench::Error) { RF.append(link("dangling.log", File.join(@dir, "new-file")), "x") }
    refute File.exist?(File.join(@dir, "new-file")), "a dangling link's target is not created"
    assert_equal "precious\n", File.read(@victim)
  end

  # The check before the open can be raced: O_NOFOLLOW is what holds.
  def test_a_link_that_appears_after_the_check_is_refused_by_the_open
    path = link("trials.jsonl")
    RF.stub(:check!, nil) do
      e = assert_raises(Rackbench::Error) { RF.append(path, "x") }
      assert_equal refusal(path), e.message
    end
    assert_equal "precious\n", File.read(@victim)
  end

  def test_regular_files_and_character_devices_open_and_append
    path = File.join(@dir, "trials.jsonl")
    RF.append(path, "a\n")
    RF.append(path, "b\n")
    assert_equal "a\nb\n", File.read(path)
    assert_equal 2, RF.open(File::NULL, File::WRONLY) { |f| f.write("ab") }
  end

  # replace removes whatever holds the name (a link, a hard link to
  # another file) and makes a new file with its mode from the start.
  def test_replace_writes_a_new_file_and_leaves_what_a_link_led_to
    via_symlink = link("nginx.conf")
    via_hard_link = File.join(@dir, "key.pem")
    File.link(@victim, via_hard_link)
    RF.replace(via_symlink, "conf\n")
    RF.replace(via_hard_link, "key\n", 0o600)
    assert_equal ["conf\n", "key\n", "precious\n"], [via_symlink, via_hard_link, @victim].map { |p| File.read(p) }
    refute File.symlink?(via_symlink)
    assert_equal 0o600, File.stat(via_hard_link).mode & 0o777
  end

  def test_a_spawned_childs_output_never_goes_through_a_link
    path = link("server.log")
    e = assert_raises(Rackbench::Error) { RF.spawn_target(path) }
    assert_equal refusal(path), e.message
    log = File.join(@dir, "ok.log")
    target = RF.spawn_target(log)
    assert_equal File::NOFOLLOW, target[1] & File::NOFOLLOW
    Process.wait(Process.spawn("echo", "hi", out: target))
    assert_equal "hi\n", File.read(log)
    assert_raises(Errno::ELOOP) { Process.spawn("echo", "hi", out: [path, *target.drop(1)]) }
    assert_equal "precious\n", File.read(@victim)
  end

  def test_a_fifo_or_a_directory_is_refused_and_never_blocks
    fifo = File.join(@dir, "warnings.jsonl")
    File.mkfifo(fifo)
    opener = Thread.new { RF.append(fifo, "x") rescue $! }
    assert opener.join(10), "opening a FIFO with no reader blocked (10 s deadline)"
    assert_equal "#{fifo} is not a regular file (fifo); a run directory holds regular files only: remove it " \
                 "(or restore the file) and run again", opener.value.message
    assert_raises(Rackbench::Error) { RF.open(@dir, File::RDONLY) }
  ensure
    opener&.kill
  end
end
