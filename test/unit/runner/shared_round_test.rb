# frozen_string_literal: true

require "test_helper"
require "rackbench/plan"
require "rackbench/runner/shared_round"

# --boot together's round: every setup booted before any is measured, then
# cell by cell in the round's order; a setup that fails to boot or dies is
# left out while the others go on; every server stopped in reverse order.
class SharedRoundTest < Minitest::Test
  # Stands for a Session: logs boots, cells, failures and stops.
  class FakeSession
    attr_reader :setup, :trials

    attr_reader :planned

    # left: the cells ([endpoint, c]) still to measure (a resumed round), all by default.
    def initialize(label, log, boots: true, dies_at: nil, left: nil)
      @setup = Rackbench::Setup.parse(label)
      @log = log
      @boots = boots
      @dies_at = dies_at
      @planned = %w[/a /b].product([1, 4]).map do |endpoint, c|
        Rackbench::Plan::Trial.new(setup: @setup, endpoint: endpoint, concurrency: c, repetition: 2)
      end
      @trials = left ? @planned.select { |t| left.include?([t.endpoint, t.concurrency]) } : @planned
    end

    def with_server
      return @log << [:boot_failed, @setup.label] unless @boots

      @log << [:boot, @setup.label]
      yield self
    ensure
      @log << [:stop, @setup.label] if @boots
    end

    def dropped?(endpoint)
      endpoint == "/dropped"
    end

    def run_cell(endpoint, trials)
      raise Rackbench::SetupFailed, "#{@setup.label} died" if @dies_at == [endpoint, trials.first.concurrency]

      @log << [:cell, @setup.label, endpoint, trials.map(&:concurrency)]
    end

    def fail!(error)
      @log << [:failed, error.message]
    end
  end

  def test_boots_all_then_measures_cell_by_cell_in_the_rounds_order
    log = []
    Rackbench::Runner::SharedRound.new([FakeSession.new("puma x1:1", log), FakeSession.new("unicorn x1", log)]).call
    assert_equal [[:boot, "puma x1:1"], [:boot, "unicorn x1"],
                  [:cell, "puma x1:1", "/a", [1]], [:cell, "unicorn x1", "/a", [1]],
                  [:cell, "puma x1:1", "/a", [4]], [:cell, "unicorn x1", "/a", [4]],
                  [:cell, "puma x1:1", "/b", [1]], [:cell, "unicorn x1", "/b", [1]],
                  [:cell, "puma x1:1", "/b", [4]], [:cell, "unicorn x1", "/b", [4]],
                  [:stop, "unicorn x1"], [:stop, "puma x1:1"]], log
  end

  # A resumed round: puma's first three cells were stored before the stop.
  # The remaining cells are measured in the plan's order, not starting
  # with puma's one left.
  def test_a_resumed_round_measures_the_cells_left_in_the_plans_order
    log = []
    puma = FakeSession.new("puma x1:1", log, left: [["/b", 4]])
    unicorn = FakeSession.new("unicorn x1", log)
    Rackbench::Runner::SharedRound.new([puma, unicorn], order: puma.planned + unicorn.planned).call
    assert_equal [[:cell, "unicorn x1", "/a", [1]], [:cell, "unicorn x1", "/a", [4]], [:cell, "unicorn x1", "/b", [1]],
                  [:cell, "puma x1:1", "/b", [4]], [:cell, "unicorn x1", "/b", [4]]], log.select { |e| e[0] == :cell }
  end

  def test_a_setup_that_fails_to_boot_or_dies_is_left_out_and_the_others_go_on
    log = []
    sessions = [FakeSession.new("puma x1:1", log, boots: false), FakeSession.new("unicorn x1", log, dies_at: ["/a", 4]),
                FakeSession.new("thin", log)]
    Rackbench::Runner::SharedRound.new(sessions).call
    assert_equal [:boot_failed, "puma x1:1"], log.first
    assert_includes log, [:failed, "unicorn x1 died"]
    assert_equal [["/a", [1]]], log.select { |e| e[0] == :cell && e[1] == "unicorn x1" }.map { |e| e[2..] }
    assert_equal 4, log.count { |e| e[0] == :cell && e[1] == "thin" }, "thin measured in every cell"
    assert_equal [[:stop, "thin"], [:stop, "unicorn x1"]], log.last(2)
  end

  def test_a_signal_stops_every_server_booted_so_far
    log = []
    dying = FakeSession.new("unicorn x1", log)
    dying.define_singleton_method(:run_cell) { |*| raise Interrupt }
    assert_raises(Interrupt) { Rackbench::Runner::SharedRound.new([FakeSession.new("puma x1:1", log), dying]).call }
    assert_equal [[:stop, "unicorn x1"], [:stop, "puma x1:1"]], log.last(2)
  end
end
