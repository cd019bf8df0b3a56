# frozen_string_literal: true

require "test_helper"
require "rackbench/sampling/profile_dump"
require_relative "../../../lib/rackbench/runtime/in_server_profile"

# The watcher's own start and finish, in this process: a dump with the
# GC.stat deltas, CPU time and, where Active Support is loaded, the SQL
# queries of the window (schema and cached ones left out), by normalized
# statement too.
class InServerProfileTest < Minitest::Test
  # Stands in for Active Support's notifier: subscribe, unsubscribe, and an
  # event that took 2 ms.
  module FakeNotifications
    @subs = []

    def self.subscribe(name, &block)
      @subs << [name, block]
      block
    end

    def self.unsubscribe(sub)
      @subs.reject! { |_, block| block == sub }
    end

    def self.event(name, payload)
      t = Time.now
      @subs.each { |n, s| s.call(name, t, t + 0.002, "id", payload) if n == name }
    end

    def self.sql(payload) = event("sql.active_record", payload)
    def self.request = event("process_action.action_controller", {})
  end

  def test_a_window_s_dump_counts_gc_cpu_and_the_queries_sent
    defined = Object.const_defined?(:ActiveSupport)
    Object.const_set(:ActiveSupport, Module.new) unless defined
    ActiveSupport.const_set(:Notifications, FakeNotifications) unless ActiveSupport.const_defined?(:Notifications)
    dir = tmpdir
    current = RackbenchProfile.start(dir, "tok")
    refute_nil current, "it did not start: #{Dir.glob(File.join(dir, 'tok', '*.err')).map { |f| File.read(f) }.join}"
    Array.new(200_000) { |i| "x#{i}" }
    FakeNotifications.sql({ name: "Post Load", sql: "SELECT * FROM posts WHERE id = 1" })
    FakeNotifications.sql({ name: "Post Load", cached: true, sql: "SELECT * FROM posts WHERE id = 1" })
    FakeNotifications.sql({ name: "SCHEMA", sql: "PRAGMA table_info(posts)" })
    FakeNotifications.sql({ name: "Comment Load", sql: "SELECT *  FROM comments\nWHERE post_id IN (1, 2, 3) AND body = 'it''s'" })
    FakeNotifications.sql({ name: "Post Load", sql: "SELECT * FROM posts WHERE id = 22" })
    2.times { FakeNotifications.request }
    RackbenchProfile.finish(current)
    FakeNotifications.request
    FakeNotifications.sql({ name: "after the window" })
    dump = Rackbench::Sampling::ProfileDump.parse(File.read(File.join(dir, "tok", "#{Process.pid}.prof")), root: dir)
    assert_equal 3, dump["sql_count"]
    assert_equal 2, dump["sql_requests"], "the requests Rails finished in the window"
    assert_in_delta 6.0, dump["sql_ms"], 0.01
    assert_equal [["SELECT * FROM posts WHERE id = ?", 2], ["SELECT * FROM comments WHERE post_id IN (?) AND body = ?", 1]],
                 dump["statements"].map { |sql, n, _ms| [sql, n] }, "by normalized statement, the most run first"
    assert_operator dump["alloc"], :>=, 200_000
    assert_operator dump["cpu_s"], :>, 0
    assert File.exist?(File.join(dir, "tok", "#{Process.pid}.on"))
  ensure
    Object.send(:remove_const, :ActiveSupport) unless defined
  end

  def burn(deadline)
    x = 0
    x += 1 while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
    x
  end

  def test_a_window_s_stacks_are_written_root_first_and_account_for_every_sample
    dir = tmpdir
    current = RackbenchProfile.start(dir, "stk")
    refute_nil current
    burn(Process.clock_gettime(Process::CLOCK_MONOTONIC) + 0.3)
    RackbenchProfile.finish(current)
    dump = Rackbench::Sampling::ProfileDump.parse(File.read(File.join(dir, "stk", "#{Process.pid}.prof")), root: dir)
    assert_operator dump["samples"], :>, 10
    assert_equal dump["samples"], dump["stacks"].sum(&:first), "every sample in one stack"
    burn = dump["stack_frames"].index { |name, _| name == "InServerProfileTest#burn" }
    refute_nil burn, dump["stack_frames"].inspect
    burning = dump["stacks"].select { |_, path| path.include?(burn) }
    assert_operator burning.sum(&:first), :>, dump["samples"] / 2
    caller = burning.map { |_, path| dump["stack_frames"][path[path.index(burn) - 1]][0] }.uniq
    assert_equal ["InServerProfileTest#test_a_window_s_stacks_are_written_root_first_and_account_for_every_sample"], caller
  end
end
