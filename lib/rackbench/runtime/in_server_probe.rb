# frozen_string_literal: true

# Loaded INSIDE each Ruby process of a server under test (through RUBYOPT
# "-r THIS_FILE", set by Runtime::Flags), never by rackbench itself: it must
# stand alone (no rackbench code, only core Ruby) and never raise.
#
# It appends one JSON line per process to the file named by
# RACKBENCH_RUNTIME_FILE: {"pid":..,"ppid":..,"yjit":true|false|null,"at":"load"|"fork"},
# once when the process loads it (a master, or a Ruby that Bundler or a
# binstub started anew with the same environment) and once in each child
# right after a fork, through Ruby 3.1's Process._fork hook (Kernel#fork,
# Process.fork and IO.popen("-") all call it), so every forked worker says
# what it runs with. YJIT state is read with RubyVM::YJIT.enabled? in that
# very process: what took, not what was asked for. A line is under
# PIPE_BUF bytes, written with O_APPEND in one write, so lines from many
# processes never interleave. Cost: one small write per process start.
module RackbenchRuntimeProbe
  FILE_VAR = "RACKBENCH_RUNTIME_FILE"

  module_function

  def record(at)
    path = ENV.fetch(FILE_VAR, nil)
    return if path.nil? || path.empty?

    yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.respond_to?(:enabled?) ? RubyVM::YJIT.enabled? : nil
    line = %({"pid":#{Process.pid},"ppid":#{Process.ppid},"yjit":#{yjit.nil? ? 'null' : yjit},"at":"#{at}"}\n)
    File.open(path, File::WRONLY | File::APPEND | File::CREAT | File::NOFOLLOW, 0o644) { |f| f.syswrite(line) }
  rescue StandardError, ScriptError
    nil # a probe never breaks the server it watches
  end

  # Prepended to Process's singleton class: records in the child of every fork.
  module ForkHook
    def _fork
      pid = super
      RackbenchRuntimeProbe.record("fork") if pid.zero?
      pid
    end
  end
end

RackbenchRuntimeProbe.record("load")
Process.singleton_class.prepend(RackbenchRuntimeProbe::ForkHook) if Process.respond_to?(:_fork)
