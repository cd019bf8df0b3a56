# frozen_string_literal: true

require_relative "../error"
require_relative "../server"

module Rackbench
  # What a setup "... on jruby" may say (Setup.parse asks): a server whose
  # adapter registered a JRuby adapter (Server::Base.register_runtime; Puma),
  # in one process when that adapter runs one, optionally with a heap limit
  # written as the JVM flag "-Xmx512m".
  module JrubySetup
    HEAP = /\A-Xmx(\d+[kmg]?)\z/i.freeze

    module_function

    # Removes a "-Xmx..." word from words; returns its size ("512m") or nil.
    def take_heap!(words, text)
      found = words.select { |w| w.match?(/\A-xmx/i) }
      return nil if found.empty?
      raise UsageError, "setup #{text.inspect}: give one heap limit, e.g. -Xmx512m" if found.size > 1

      size = found.first[HEAP, 1] or
        raise UsageError, "setup #{text.inspect}: cannot read #{found.first.inspect}; write the heap limit as -Xmx512m or -Xmx2g"
      words.delete(found.first)
      size.downcase
    end

    def check!(text, server, workers, runtime, heap, front)
      if runtime != "jruby"
        raise UsageError, "setup #{text.inspect}: -Xmx#{heap} sets the JVM's heap; it needs \"on jruby\"" if heap

        return
      end
      adapter = Server::ADAPTERS.fetch(server).runtime_adapters["jruby"]
      example = "#{Server.on_runtime('jruby').first} x1:16 on jruby"
      unless adapter
        raise UsageError, "setup #{text.inspect}: #{server} does not run on JRuby here (it forks workers or needs a C " \
                          "extension, and JRuby has neither fork nor MRI's C API); on jruby write \"#{example}\""
      end
      if adapter.only_one_process? && workers != 1
        raise UsageError, "setup #{text.inspect}: #{server.capitalize}'s cluster mode forks workers, and JRuby cannot fork; " \
                          "write \"#{server} x1:THREADS on jruby\" (one JVM, its threads run in parallel without a GVL)"
      end
      return unless front

      raise UsageError, "setup #{text.inspect}: \"behind #{front}\" is not offered on jruby; write \"#{example}\""
    end
  end
end
