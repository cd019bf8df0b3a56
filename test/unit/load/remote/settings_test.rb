# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/config"
require "rackbench/load/remote/shares"
require "rackbench/load/wrk"

module Rackbench
  class RemoteSettingsTest < Minitest::Test
    Remote = Load::Remote

    def build(**cfg)
      Config.build({ setups: ["puma x1"], endpoints: ["/hello"] }.merge(cfg))
    end

    def test_hosts_parse_with_user_port_and_weight
      h = Remote::Host.parse("deploy@10.0.0.5:2222=3")
      assert_equal ["deploy", "10.0.0.5", 2222, 3.0], [h.user, h.hostname, h.port, h.weight]
      assert_equal "deploy@10.0.0.5:2222=3", h.spec
      plain = Remote::Host.parse("127.0.0.2")
      assert_equal 22, plain.port
      assert_equal Etc.getpwuid.name, plain.user
      assert plain.loopback?
      assert_equal "[::1]", Remote::Host.parse("root@[::1]:22").label[/\[.*\]/]
    end

    def test_bad_and_duplicated_hosts_are_one_line_usage_errors
      e = assert_raises(UsageError) { build(load_hosts: ["root@host:99999"]) }
      assert_match(/--load-host "root@host:99999" must look like \[USER@\]HOST\[:PORT\]/, e.message)
      e = assert_raises(UsageError) { build(load_hosts: ["root@127.0.0.2:22", "root@127.0.0.2"]) }
      assert_equal "load host root@127.0.0.2:22 is given twice; give each host once (=WEIGHT changes its share)", e.message
    end

    def test_engines_that_cannot_load_from_other_hosts_are_refused_by_name
      %w[ab siege].each do |engine|
        e = assert_raises(UsageError) { build(load_hosts: ["127.0.0.2"], engine: engine) }
        assert_match(/--load-host works with --engine wrk or wrk-open only \(#{engine} /, e.message)
      end
      assert_equal "wrk-open", build(load_hosts: ["127.0.0.2"], rate: [10])[:engine]
    end

    def test_bind_must_be_an_address_of_this_machine
      e = assert_raises(UsageError) { build(bind: "192.0.2.77") }
      assert_match(/\A--bind "192.0.2.77" is not an address of this machine \(it has .*127\.0\.0\.1/, e.message)
      assert_equal "127.0.0.1", build[:bind]
      assert_nil Remote::Settings.bind_warning("127.0.0.1")
      assert_match(/servers listen on 10.1.2.3, not only on loopback/, Remote::Settings.bind_warning("10.1.2.3"))
    end

    def test_a_far_host_cannot_reach_a_loopback_bind
      e = assert_raises(UsageError) { build(load_hosts: ["root@192.0.2.10"]) }
      assert_match(/load host root@192.0.2.10:22 cannot reach servers listening on 127.0.0.1 .*--bind ADDRESS/, e.message)
    end

    def test_ssh_files_must_exist
      e = assert_raises(UsageError) { build(load_hosts: ["127.0.0.2"], ssh_key: "/nonexistent/key") }
      assert_equal "--ssh-key /nonexistent/key is not a private key file this user can read; check the path", e.message
    end

    def test_load_hosts_survive_the_stored_config
      cfg = build(load_hosts: ["root@127.0.0.2:2201=2", "127.0.0.3"])
      again = Config.load(JSON.parse(JSON.generate(Config.dump(cfg))))
      assert_equal cfg[:load_hosts], again[:load_hosts]
    end

    def test_shares_follow_weights_and_add_up
      assert_equal [2, 2], Remote::Shares.connections(4, [2, 2], %w[a b])
      assert_equal [6, 1], Remote::Shares.connections(7, [8, 2], %w[a b]) # quotas 5.6 and 1.4: the larger remainder
      assert_equal [9, 1], Remote::Shares.connections(10, [100, 1], %w[a b]) # never 0
      assert_equal [75.0, 25.0], Remote::Shares.rates(100, [6, 2])
      e = assert_raises(UsageError) { Remote::Shares.connections(1, [2, 2], %w[a b]) }
      assert_match(/concurrency 1 is below the number of load hosts \(2: a, b\)/, e.message)
      assert_equal 2, Remote::Shares.threads(4, 8)
      assert_equal 1, Remote::Shares.threads(3, 8) # 2 does not divide 3
      assert_equal 1, Remote::Shares.threads(4, 1)
    end
  end
end
