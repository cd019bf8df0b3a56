# frozen_string_literal: true

require "test_helper"

# docs/fault-suite.md lists every fault case, one line each, and nothing else.
class DocsFaultSuiteTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)

  def test_every_fault_case_is_listed_and_every_listed_case_exists
    cases = Dir[File.join(ROOT, "test/faults/*_test.rb")].flat_map do |f|
      File.read(f).scan(/^  def (test_\w+)/).flatten.map { |t| [File.basename(f), t] }
    end
    doc = File.read(File.join(ROOT, "docs/fault-suite.md"))
    listed = doc.scan(/^\| (\w+_test\.rb) \| (test_\w+) \|/)
    assert_equal cases.sort, listed.sort, "docs/fault-suite.md and test/faults/ disagree"
    assert_operator cases.size, :>=, 30
  end
end
