# frozen_string_literal: true

module Rackbench
  module ProcessControl
    # The line of a server's log that says what went wrong, for a one-line
    # message: not the last line (a backtrace's "from .../bin/puma:25:in
    # '<main>'"), but a line that names an error: an exception class
    # ("RuntimeError", "Gem::LoadError"), "Error"/"invalid", Bundler's "Your
    # Ruby version is ..." or "Could not find ...".
    #
    # The quote is the error's own words: what the log puts before them on
    # the line is dropped (PREFIXES), and a quote too long for one line loses
    # its middle, never its end, so the last sentence (Bundler's advice, the
    # exception class) stays whole. A message on several lines whose quoted
    # line ends in ":" ("KeyError: Cannot load database configuration:")
    # goes on with its next line, which says what ("key not found:
    # \"DATABASE_HOST\""). Recorded logs: test/fixtures/boot_logs.
    module ErrorLine
      BACKTRACE = /\A\s*from\s|\A\s*\S+:\d+:in\s/.freeze
      ERROR = Regexp.union(/\b\w*(Error|Exception)\b/, /\b(error|invalid|failed|undefined|not found|cannot load)\b/i,
                           /\AYour (Ruby|bundle)/, /\ACould not (find|locate)/).freeze
      # In this order: Passenger's "App 123 output: " before each line of an
      # app process; its loader's "Error: The application encountered the
      # following error: "; Ruby's "file:line:in `method': " before an
      # uncaught exception's message (Bundler's errors included; Ruby 3.4
      # quotes 'method' with two apostrophes).
      # Ruby's Logger (Unicorn, Pitchfork): "E, [2026-11-28T17:58:38.07 #916] ERROR -- : " before each line.
      PREFIXES = [/\AApp \d+ output:\s*/, /\A[DIWEFA], \[[^\]]*\] +[A-Z]+ -- [^:]*: /,
                  /\AError: The application encountered the following error:\s*/,
                  /\A\S+:\d+:in [`'][^`']*':\s+/].freeze
      # A server's own words about its processes, never the app's error:
      # Unicorn's master logging each worker it reaped ("reaped
      # #<Process::Status: pid 916 exit 1> worker=0") after the worker died
      # of the app's error, logged above it.
      OWN = /\Areaped #<Process::Status/.freeze
      CLASS = / \([A-Z]\w*(?:::\w+)*\)\z/.freeze # Ruby's " (KeyError)" at a message's end
      MAX = 200 # lines of a log's tail
      QUOTE_MAX = 400 # characters of a quote
      CUT = " ... "

      module_function

      # The first line naming an error (boot: the cause comes first), else
      # the last line that is not a backtrace frame; nil for an empty text.
      def first(text)
        lines = candidates(text)
        words = lines.reject { |l| l.match?(BACKTRACE) }
        pick(continued(words, words.index { |l| l.match?(ERROR) }) || words.last || lines.last)
      end

      # The last line naming an error (a request's failure, after boot).
      def last(text)
        words = candidates(text).reject { |l| l.match?(BACKTRACE) }
        index = words.rindex { |l| l.match?(ERROR) }
        index -= 1 if index&.positive? && opens?(words[index - 1]) # the found line goes on an earlier one
        pick(continued(words, index))
      end

      def opens?(line)
        line.delete_suffix(line[CLASS].to_s).end_with?(":")
      end

      # The line at index, with the next one when it ends in ":" (before an
      # exception class): the message goes on there.
      def continued(words, index)
        return nil unless index

        line = words[index]
        following = words[index + 1]
        klass = line[CLASS].to_s
        return line unless following && opens?(line)

        "#{line.delete_suffix(klass)} #{following}#{klass}"
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

      # Lines without their prefixes; no blank lines, no "from" frames, none
      # of the server's own (OWN).
      def candidates(text)
        text.to_s.lines.map { |l| unprefix(l.strip) }.reject { |l| l.empty? || l.match?(/\A\s*from\s/) || l.match?(OWN) }
      end

      def unprefix(line)
        PREFIXES.reduce(line) { |l, prefix| l.sub(prefix, "") }
      end

      def pick(line)
        line && shorten(line)
      end

      # A quote within QUOTE_MAX: the start of the line cut at a word, CUT,
      # then the last sentence whole with the exception class ("(Bundler::
      # GemNotFound)"). A last sentence itself too long (Bundler's list of
      # missing gems) keeps its own end from a word on.
      def shorten(line)
        return line if line.length <= QUOTE_MAX

        klass = line[/ \([A-Z]\w*(?:::\w+)*\)\z/].to_s
        body = line.delete_suffix(klass)
        tail = body.split(/(?<=[.!?])\s+/).last.to_s
        tail = body[-QUOTE_MAX / 3..][/(?<=\s)\S.*\z/].to_s if tail.length > QUOTE_MAX / 2
        room = QUOTE_MAX - CUT.length - tail.length - klass.length
        "#{body[0, room].sub(/\s+\S*\z/, '')}#{CUT}#{tail}#{klass}"
      end
    end
  end
end
