# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/cli/measuring"
require "rackbench/store/run_dir"

class WarningLogTest < Minitest::Test
  def test_warnings_and_store_notices_reach_warnings_jsonl_and_the_terminal
    store = Rackbench::Store::RunDir.create(File.join(tmpdir, "run"))
    err = StringIO.new
    listener = Rackbench::CLI::Measuring.listener(store, err: err, quiet: false)
    listener.warning("puma x2:5: warm-up of http://x/ failed (boom); measuring anyway")
    File.write(File.join(store.path, "trials.jsonl"), "{\"set", mode: "a")
    store.append_trial("key" => "k", "setup" => "puma", "endpoint" => "/")
    texts = store.warnings.map { |w| w["text"] }
    assert_equal 2, texts.size
    assert_equal "puma x2:5: warm-up of http://x/ failed (boom); measuring anyway", texts[0]
    assert_match(/trials.jsonl ended in a line cut short \(5 bytes/, texts[1])
    assert(store.warnings.all? { |w| w["at"].match?(/\A\d{4}-\d\d-\d\dT/) })
    assert_equal 2, err.string.scan(/^warning: /).size
  end

  def test_quiet_still_stores_warnings
    store = Rackbench::Store::RunDir.create(File.join(tmpdir, "run"))
    err = StringIO.new
    Rackbench::CLI::Measuring.listener(store, err: err, quiet: true).warning("w")
    assert_equal ["w"], store.warnings.map { |w| w["text"] }
    assert_empty err.string
  end
end
