# frozen_string_literal: true

require "etc"
require "socket"
require "rbconfig"
require_relative "version"
require_relative "clock"

module Rackbench
  # Facts about the machine and toolchain, recorded in meta.json so a run
  # directory describes where its numbers came from.
  module Environment
    ENV_KEYS = /\A(RUBY_GC_|RUBY_YJIT|MALLOC_ARENA_MAX|RUBYOPT|WEB_CONCURRENCY|RAILS_MAX_THREADS|LD_PRELOAD)/.freeze

    module_function

    def collect(env: ENV)
      {
        "rackbench" => VERSION,
        "ruby" => RUBY_DESCRIPTION,
        "ruby_path" => RbConfig.ruby,
        "yjit_available" => defined?(RubyVM::YJIT) ? true : false,
        # Servers run YJIT only when their setup says "on yjit" (Runtime::Flags
        # unsets RUBY_YJIT_ENABLE for them); each trial stores what took.
        "hostname" => Socket.gethostname,
        "kernel" => "#{Etc.uname[:sysname]} #{Etc.uname[:release]}",
        "cpu_model" => cpu_model,
        "cores" => Etc.nprocessors,
        "memory_bytes" => mem_total,
        "env" => env.to_h.select { |k, _| ENV_KEYS.match?(k) }
      }
    end

    def cpu_model
      File.foreach("/proc/cpuinfo") { |l| return l.split(":", 2).last.strip if l.start_with?("model name") }
      nil
    rescue Errno::ENOENT
      nil
    end

    def mem_total
      File.foreach("/proc/meminfo") { |l| return l.split[1].to_i * 1024 if l.start_with?("MemTotal:") }
      nil
    rescue Errno::ENOENT
      nil
    end
  end
end
