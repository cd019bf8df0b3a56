# frozen_string_literal: true

require "test_helper"
require "rackbench/report/formats"
require_relative "run_fixture"

# `report --format`'s formats are a registry (Report::Formats): each
# registers itself from its own file in report/formats/ with one shape
# (the run directory and the options in, a String out), so a new format is
# one file. Here one is registered the way such a file does it.
class ReportFormatsTest < Minitest::Test
  def test_the_built_in_formats_register_themselves_in_order
    assert_equal %w[table html md csv json speedscope], Rackbench::Report::Formats.names
    assert_equal "md", Rackbench::Report::Formats.fetch("markdown").name
    assert_equal [%i[why], %i[pivot]], %w[table csv].map { |n| Rackbench::Report::Formats.fetch(n).options }
    e = assert_raises(Rackbench::UsageError) { Rackbench::Report::Formats.fetch("mdx") }
    assert_equal 'unknown --format "mdx" (did you mean "md"?); accepted: table, html, md, csv, json, speedscope', e.message
  end

  def test_a_new_format_is_one_registration
    dir = Rackbench::RunFixture.full_run(File.join(tmpdir, "run"))
    Rackbench::Report::Formats.register("count", order: 9, help: "trials per setup") do |store, _opts|
      store.trials.group_by { |t| t["setup"] }.map { |setup, ts| "#{setup}: #{ts.size}\n" }.join
    end
    status, out, err = run_cli("report", dir, "--format", "count")
    assert_equal 0, status, err
    refute_empty out
    out.lines.each { |l| assert_match(/\A.+: \d+\n\z/, l) }
    status, _out, err = run_cli("report", dir, "--format", "count", "--why")
    assert_equal 2, status, "it takes no --why"
    assert_match(/--why applies to the terminal table/, err)
  ensure
    Rackbench::Report::Formats::ALL.delete("count")
  end
end
