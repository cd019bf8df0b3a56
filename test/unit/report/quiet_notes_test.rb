# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/report/table"
require_relative "run_fixture"

# The terminal table marks cells measured under foreign load and says
# whether server and load generator shared cores.
class QuietNotesTest < Minitest::Test
  def trials(foreign:, cpus:)
    [1, 8].map do |c|
      Rackbench::RunFixture.trial(setup: "puma x2:3", endpoint: "/x", concurrency: c, repetition: 1, rps: 100.0 * c)
                           .merge("machine" => { "cpu_pct" => 150.0, "foreign_pct" => c == 8 ? foreign : 2.0 },
                                  "cpus" => cpus)
    end
  end

  def render(trials)
    io = StringIO.new
    Rackbench::Report::Table.new(Rackbench::Report::Dataset.new(meta: {}, trials: JSON.parse(JSON.generate(trials))), io: io).render
    io.string
  end

  def test_a_cell_under_foreign_load_is_marked_and_explained
    text = render(trials(foreign: 45.0, cpus: { "shared" => true }))
    row = text.lines.find { |l| l.start_with?("puma x2:3") }
    refute_match(/~/, row.split("  ").reject(&:empty?)[1], "the quiet cell has no mark")
    assert row.rstrip.end_with?("~"), "the c=8 cell is marked: #{row}"
    assert_match(/^~ = measured under foreign load: .* \(1 of 2 trial\(s\), up to 45%\)/, text)
    assert_match(/^Server and load generator shared the machine's cores \(no --cpus\)/, text)
  end

  def test_separate_cores_are_stated_and_quiet_cells_carry_no_mark
    text = render(trials(foreign: 3.0, cpus: { "server" => "0", "client" => "1", "rule" => "given", "shared" => false }))
    refute_match(/~/, text)
    assert_match(/^Server on CPU 0, load generator on CPU 1 \(--cpus; given\)\./, text)
  end
end
