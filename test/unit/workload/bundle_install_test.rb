# frozen_string_literal: true

require "test_helper"
require "rackbench/workload/bundle_install"

# The reason a commit's gems could not be installed is Bundler's own last
# sentence, whole: Bundler wraps it at 80 columns, and its last line alone
# said only "installed locally" (ruby-grape/grape-on-rack's history, issue 44).
class BundleInstallSaidTest < Minitest::Test
  BUNDLER_2_4 = <<~OUT
    Using rake 13.1.0
    Using websocket 1.2.10
    Could not find nokogiri-1.15.4, puma-6.4.0, rack-3.0.8, rack-cors-2.0.1,
    mini_portile2-2.8.5, nio4r-2.5.9, webrick-1.8.1, rexml-3.2.6 in cached gems or
    installed locally
  OUT

  def said(text) = Rackbench::Workload::BundleInstall.said(text)

  def test_a_wrapped_sentence_is_said_whole
    assert_equal "Could not find nokogiri-1.15.4, puma-6.4.0, rack-3.0.8, rack-cors-2.0.1, mini_portile2-2.8.5, " \
                 "nio4r-2.5.9, webrick-1.8.1, rexml-3.2.6 in cached gems or installed locally", said(BUNDLER_2_4)
  end

  def test_one_line_stays_one_line_and_a_long_one_is_cut_at_its_end
    assert_equal "Bundler could not find compatible versions", said("Resolving...\nBundler could not find compatible versions\n")
    assert_equal "no output", said("\n \n")
    long = said("#{'Word ' * 100}\n")
    assert_equal 300, long.size
    assert long.end_with?("...")
  end
end
