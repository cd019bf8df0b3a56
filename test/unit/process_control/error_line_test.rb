# frozen_string_literal: true

require "test_helper"
require "rackbench/process_control/error_line"
require "rackbench/process_control/boot_advice"

# The line quoted from a real boot failure (test/fixtures/boot_logs), and the
# advice that goes with it.
class BootLogQuoteTest < Minitest::Test
  E = Rackbench::ProcessControl::ErrorLine
  A = Rackbench::ProcessControl::BootAdvice
  LOGS = File.expand_path("../../fixtures/boot_logs", __dir__)

  STRINGIO = "You have already activated stringio 3.0.1.2, but your Gemfile requires stringio 3.2.0. Since stringio is a " \
             "default gem, you can either remove your dependency on it or try updating to a newer version of bundler that " \
             "supports stringio as a default gem. (Gem::LoadError)"

  def log(name)
    File.read(File.join(LOGS, name))
  end

  # Passenger's "App N output: " and its loader's "Error: The application
  # encountered ..." go; Bundler's message stays whole, advice included.
  def test_passengers_quote_is_bundlers_message_whole
    assert_equal STRINGIO, E.first(log("passenger_stringio_server.log"))
  end

  def test_rubys_file_line_prefix_is_dropped
    assert_equal STRINGIO, E.first(log("bundler_activated.log"))
    assert_equal "Could not find sinatra-1.4.4, json-1.8.1, puma-2.8.2, thin-1.6.1, unicorn-4.8.2, rack-1.5.2, rack-protection-1.5.2, " \
                 "tilt-1.4.1, daemons-1.1.9, eventmachine-1.0.3, kgio-2.9.2, raindrops-0.13.0 in any of the sources (Bundler::GemNotFound)",
                 E.first(log("bundler_gem_not_found.log"))
    assert_equal "! Unable to load application: RuntimeError: SECRET_KEY_BASE is not set (rackbench sets one when it starts this app)",
                 E.first(log("puma_unable_to_load.log"))
  end

  # Unicorn's workers die on the app's error and its master logs each
  # reaping (issue 46, item 8): the quote is the app's error without the
  # Logger's prefix, never "reaped #<Process::Status: ...> worker=1".
  def test_unicorns_quote_is_the_apps_error_not_its_own_reaping
    said = "DATABASE_URL is not set: export it before booting (ArgumentError)"
    assert_equal said, E.first(log("unicorn_worker_crash.log"))
    assert_equal said, E.last(log("unicorn_worker_crash.log"))
  end

  # Rails' "Cannot load database configuration:" is a message on two lines
  # (issue 34): the quote keeps the second, which says what to set.
  def test_a_message_ending_in_a_colon_goes_on_with_its_next_line
    assert_equal '! Unable to load application: KeyError: Cannot load database configuration: key not found: "DATABASE_HOST"',
                 E.first(log("puma_multiline_message.log"))
    assert_equal 'Cannot load database configuration: key not found: "DATABASE_HOST" (KeyError)',
                 E.last(log("puma_multiline_message.log")), "Ruby's own line, the class kept at its end"
  end

  # 1,548 characters of missing gems: the start of the list, then its end
  # from a whole gem name on, with the exception class.
  def test_a_long_list_keeps_its_start_and_its_end
    quote = E.first(log("bundler_not_installed.log"))
    assert_operator quote.length, :<=, E::QUOTE_MAX
    assert quote.start_with?("Could not find actionpack-7.2.4, actionview-7.2.4, railties-7.2.4, "), quote
    assert quote.end_with?(", stringio-3.2.0, fiber-storage-1.0.1 in any of the sources (Bundler::GemNotFound)"), quote
    head, tail = quote.split(E::CUT)
    assert_match(/,\z/, head, "cut after a whole gem name")
    assert_match(/\A[a-z][\w-]*-\d/, tail, "resumed at a whole gem name")
  end

  # Passenger's own summary line (424 characters) puts its words and the
  # app's path first: the cut falls before Bundler's last sentence, which
  # stays whole.
  def test_a_long_quote_keeps_its_last_sentence_whole
    line = log("passenger_stringio_server.log").lines.grep(/Could not spawn process/).first.strip
    assert_operator line.length, :>, E::QUOTE_MAX
    quote = E.first(line)
    assert_operator quote.length, :<=, E::QUOTE_MAX
    assert quote.start_with?("[ E 2026-11-25 16:12:04.3704 13380/Tf age/Cor/App/Implementation.cpp:221 ]: Could not spawn process " \
                             "for application /work/main/apps/rails: "), quote
    assert quote.end_with?("#{E::CUT}Since stringio is a default gem, you can either remove your dependency on it or try updating " \
                           "to a newer version of bundler that supports stringio as a default gem. (Gem::LoadError)"), quote
    assert_equal STRINGIO, E.first(STRINGIO), "within QUOTE_MAX: whole"
  end

  def test_frames_are_never_the_quote
    frames_only = log("passenger_stringio_server.log").lines.grep(/:in `/).join
    refute_match(/:\d+:in /, E.first("Booting\n#{frames_only}").to_s)
    assert_nil E.last(frames_only)
  end

  # A gem conflict's fix is in the Gemfile or lock, and Bundler says it:
  # no "make it boot with its own setup first".
  def test_advice_fits_the_failure
    assert_nil A.app_load(STRINGIO, root: "/app")
    assert_nil A.bundle(STRINGIO, root: "/app")
    [log("bundler_gem_not_found.log"), log("bundler_not_installed.log")].each do |text|
      assert_equal "run `bundle install` in /app", A.app_load(E.first(text), root: "/app")
      assert_equal "run `bundle install` in /app", A.bundle(E.first(text), root: "/app")
    end
    app_error = E.first(log("puma_unable_to_load.log"))
    assert_equal "make it boot with its own setup first", A.app_load(app_error, root: "/app")
    assert_nil A.bundle(app_error, root: "/app"), "a boot exit quotes the app's error without advice, as before"
  end
end
