# frozen_string_literal: true

require "test_helper"

# Issue 36's house rule, kept by a test: no file in lib/ is over 300 lines,
# so no file becomes the room everyone must edit. A file that grows past it
# is split by concept (one concept per file, docs/architecture.md).
class FileSizeTest < Minitest::Test
  LIMIT = 300

  def test_no_lib_file_is_over_the_limit
    lib = File.expand_path("../../lib", __dir__)
    sizes = Dir.glob("**/*.rb", base: lib).to_h { |f| [f, File.foreach(File.join(lib, f)).count] }
    assert_operator sizes.size, :>, 200, "lib/'s files were read"
    over = sizes.select { |_, n| n > LIMIT }
    assert_empty over, "lib/ files over #{LIMIT} lines (split them by concept)"
  end
end
