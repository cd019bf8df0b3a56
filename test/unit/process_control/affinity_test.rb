# frozen_string_literal: true

require "test_helper"
require "rackbench/process_control/affinity"
require "rackbench/plan/config"

# --cpus: parsing, the auto rule, and every refusal (one line, before any
# process starts).
class AffinityTest < Minitest::Test
  A = Rackbench::ProcessControl::Affinity

  def online
    A.online_cpus
  end

  def test_lists_parse_and_format_both_ways
    assert_equal [0, 1, 2, 5], A.cpus("0-2,5")
    assert_equal "0-2,5", A.format_list([5, 0, 2, 1])
    assert_raises(Rackbench::UsageError) { A.cpus("two") }
    assert_raises(Rackbench::UsageError) { A.cpus("3-1") }
  end

  def test_given_sets_are_kept_and_recorded_as_not_shared
    skip "needs 2 CPUs" if online.size < 2
    sets = A.parse("server=#{online[0]},client=#{online[1]}", usable: online)
    assert_equal [online[0]], sets.server
    assert_equal [online[1]], sets.client
    assert_equal({ "server" => online[0].to_s, "client" => online[1].to_s, "rule" => "given", "shared" => false },
                 A.record(sets))
    assert_equal({ "shared" => true }, A.record(nil))
  end

  def test_auto_gives_the_client_the_last_quarter_rounded_up
    assert_equal [[0], [1]], A.auto([0, 1]).then { |s| [s.server, s.client] }
    assert_equal [[0, 1, 2, 3, 4, 5], [6, 7]], A.auto((0..7).to_a).then { |s| [s.server, s.client] }
    assert_equal [[0, 1, 2], [3]], A.auto([0, 1, 2, 3]).then { |s| [s.server, s.client] }
    error = assert_raises(Rackbench::UsageError) { A.auto([0]) }
    assert_match(/needs at least 2 usable CPUs/, error.message)
  end

  def test_overlapping_missing_and_forbidden_cpus_are_refused_in_one_line
    overlap = assert_raises(Rackbench::UsageError) { A.parse("server=0-1,client=1", usable: [0, 1]) }
    assert_match(/overlap on CPU 1/, overlap.message)
    missing = assert_raises(Rackbench::UsageError) { A.parse("server=0,client=4096", usable: online) }
    assert_match(/CPU 4096, which this machine does not have/, missing.message)
    skip "needs 2 CPUs" if online.size < 2
    denied = assert_raises(Rackbench::UsageError) { A.parse("server=#{online[0]},client=#{online[1]}", usable: [online[0]]) }
    assert_match(/affinity to CPU #{online[1]} is not permitted here/, denied.message)
    [overlap, missing, denied].each { |e| assert_equal 1, e.message.lines.size }
  end

  def test_a_set_missing_or_a_wrong_role_is_refused
    assert_match(/give both sets/, assert_raises(Rackbench::UsageError) { A.parse("server=0", usable: [0, 1]) }.message)
    assert_match(/--cpus server=LIST/, assert_raises(Rackbench::UsageError) { A.parse("db=0,client=1", usable: [0, 1]) }.message)
  end

  def test_config_validates_and_stores_the_sets_as_json
    skip "needs 2 CPUs" if A.usable_cpus.size < 2
    cfg = Rackbench::Config.build(cpus: "auto")
    assert_kind_of A::Sets, cfg[:cpus]
    stored = Rackbench::Config.dump(cfg).fetch("cpus")
    assert_equal A::AUTO_RULE, stored["rule"]
    assert_equal cfg[:cpus], Rackbench::Config.load(Rackbench::Config.dump(cfg))[:cpus], "--resume reads it back"
  end

  def test_wrap_runs_the_program_under_taskset_only_with_a_set
    assert_equal %w[taskset -c 0-1 wrk -t 1], A.wrap(%w[wrk -t 1], [0, 1])
    assert_equal %w[wrk], A.wrap(%w[wrk], nil)
  end
end
