# frozen_string_literal: true

require "open3"
require_relative "../../lib/rackbench/clock"

module Rackbench
  # Every wait in a test has a deadline and says what it waited for: a
  # regression that never lets the awaited thing happen fails the test
  # with that message instead of hanging the suite (issue 33).
  # docs/development.md gives the grep that finds a wait without one.
  module Waits
    # Polls the block every `every` s until it returns a truthy value, which
    # it returns; past `deadline` seconds (monotonic) the test fails with
    # "waited N s for WHAT".
    def wait_until(deadline:, what:, every: 0.05)
      stop = Clock.now + deadline
      loop do
        value = yield
        return value if value
        flunk "waited #{deadline} s for #{what}; it did not happen" if Clock.now >= stop

        sleep every
      end
    end

    # Open3.capture3 with a deadline: the command runs in its own process
    # group; past `timeout` seconds the whole group is KILLed (so nothing it
    # started is left running) and the test fails naming the command and
    # the end of what it printed. Returns [out, err, status] as capture3 does.
    def capture_with_timeout(*cmd, timeout:, stdin_data: "", **opts)
      Open3.popen3(*cmd, pgroup: true, **opts) do |stdin, stdout, stderr, waiter|
        readers = [stdout, stderr].map { |io| Thread.new { io.read } }
        write_stdin(stdin, stdin_data)
        unless waiter.join(timeout)
          kill_group(waiter.pid)
          waiter.join(5)
          out, err = readers.map { |r| r.join(5) && r.value }
          flunk "#{cmd.grep(String).join(' ')} did not finish within #{timeout} s (its process group was killed)\n" \
                "stdout: #{out.to_s[-2000..] || out}\nstderr: #{err.to_s[-2000..] || err}"
        end
        [readers[0].value, readers[1].value, waiter.value]
      end
    end

    private

    def write_stdin(stdin, data)
      stdin.write(data)
    rescue Errno::EPIPE
      nil
    ensure
      stdin.close
    end

    def kill_group(pid)
      Process.kill("KILL", -pid)
    rescue Errno::ESRCH, Errno::EPERM
      nil
    end
  end
end
