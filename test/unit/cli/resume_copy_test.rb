# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"

# A run directory copied elsewhere (a handed-over run, issue 46's item 3)
# and resumed there: every line names the directory being resumed, not
# the one the run was made in (the opening line said meta.json's old one).
class ResumeCopyTest < Minitest::Test
  URL = "http://127.0.0.1:9"

  def test_a_copied_run_is_resumed_under_its_new_name
    made = File.join(tmpdir, "made")
    status, _out, err = run_cli("run", "--engine", "fake", "--url", URL, "--no-verify", "-e", "/a", "-c", "1,2", "-d", "0.5",
                                "--warmup", "0", "-q", "-o", made)
    assert_equal 0, status, err
    trials = File.join(made, "trials.jsonl")
    File.write(trials, File.readlines(trials).first)
    copy = File.join(tmpdir, "copy")
    FileUtils.cp_r(made, copy)
    FileUtils.rm_rf(made)
    status, out, err = run_cli("run", "--resume", copy, "--url", URL)
    assert_equal 0, status, err
    refute_match(/#{Regexp.escape(made)}\b/, out + err, "the old directory named")
    assert_match(/trials into #{Regexp.escape(copy)}$/, out + err)
    assert_equal File.expand_path(copy), JSON.parse(File.read(File.join(copy, "meta.json")))["run_dir"]
  end
end
