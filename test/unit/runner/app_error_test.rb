# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/app_error"

# The app's own error line from what the server's log gained during a trial.
class AppErrorTest < Minitest::Test
  # As Puma logs a request's exception (issue 34: Falcon's fibers sharing one
  # PostgreSQL connection raised NoMethodError; rackbench had said "status 57").
  RAISED = <<~LOG
    2026-11-27 13:40:01 +0000 Rack app ("GET /posts/1" - (127.0.0.1)): #<NoMethodError: undefined method `result_status' for nil:NilClass>
    /app/vendor/bundle/ruby/3.1.0/gems/activerecord-7.1.3/lib/active_record/connection_adapters/postgresql_adapter.rb:894:in `exec_no_cache'
    /app/app/controllers/posts_controller.rb:8:in `show'
  LOG

  def log(text)
    File.join(tmpdir, "server.log").tap { |p| File.write(p, text) }
  end

  def test_quotes_the_error_the_trial_added_not_an_older_one
    path = log("Puma starting in single mode...\n2026-11-27 13:39:00 +0000 Rack app: #<KeyError: key not found: \"OLD\">\n")
    quote = Rackbench::Runner::AppError.new(path)
    File.write(path, RAISED, mode: "a")
    assert_equal '2026-11-27 13:40:01 +0000 Rack app ("GET /posts/1" - (127.0.0.1)): #<NoMethodError: undefined method ' \
                 "`result_status' for nil:NilClass>", quote.line
  end

  def test_nothing_new_or_no_log_quotes_nothing
    path = log(RAISED)
    assert_nil Rackbench::Runner::AppError.new(path).line, "the error was there before the trial"
    assert_nil Rackbench::Runner::AppError.new(nil).line
    assert_nil Rackbench::Runner::AppError.new(File.join(tmpdir, "absent.log")).line
  end
end
