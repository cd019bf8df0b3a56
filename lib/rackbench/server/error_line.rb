# frozen_string_literal: true

module Rackbench
  module Server
    # The line of a server's log that says what went wrong, for a one-line
    # message: not the last line (a backtrace's "from .../bin/puma:25:in
    # '<main>'"), but a line that names an error: an exception class
    # ("RuntimeError", "Gem::LoadError"), "Error"/"invalid", Bundler's "Your
    # Ruby version is ..." or "Could not find ...".
    module ErrorLine
      BACKTRACE = /\A\s*from\s|\A\s*\S+:\d+:in\s/.freeze
      ERROR = Regexp.union(/\b\w*(Error|Exception)\b/, /\b(error|invalid|failed|undefined|not found|cannot load)\b/i,
                           /\AYour (Ruby|bundle)/, /\ACould not (find|locate)/).freeze
      MAX = 200

      module_function

      # The first line naming an error (boot: the cause comes first), else
      # the last line that is not a backtrace frame; nil for an empty text.
      def first(text)
        lines = candidates(text)
        pick(lines.find { |l| l.match?(ERROR) } || lines.reject { |l| l.match?(BACKTRACE) }.last || lines.last)
      end

      # The last line naming an error (a request's failure, after boot).
      def last(text)
        pick(candidates(text).reverse.find { |l| l.match?(ERROR) })
      end

      # Bytes read from a log's end: a server logging every request can
      # write hundreds of MB in seconds, and only its end says why it failed.
      TAIL_BYTES = 64 * 1024

      # The last lines of a log file ("" when it does not exist), read from
      # its last TAIL_BYTES only.
      def tail(path, lines = MAX)
        tail_text(path).lines.map(&:chomp).last(lines).join("\n")
      end

      def tail_text(path, bytes = TAIL_BYTES)
        File.open(path, "rb") do |f|
          f.seek([f.size - bytes, 0].max)
          f.read.to_s.force_encoding(Encoding::UTF_8).scrub
        end
      rescue Errno::ENOENT, Errno::EACCES
        ""
      end

      def candidates(text)
        text.to_s.lines.map(&:strip).reject { |l| l.empty? || l.match?(/\A\s*from\s/) }
      end

      def pick(line)
        line && line[0, 240]
      end
    end
  end
end
