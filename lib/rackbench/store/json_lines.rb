# frozen_string_literal: true

require "json"
require_relative "../clock"
require_relative "../error"

module Rackbench
  module Store
    # One file of records, one JSON object a line, appended and never
    # rewritten (trials.jsonl, setups.jsonl, tune.jsonl ...).
    #
    # Appending: the lines go out in one write(2) and are fsynced. A file that
    # does not end in a newline holds the fragment of a line a crash cut
    # short: before appending, that fragment is moved aside into
    # NAME.fragment-TIME (kept, and reported), so the new record starts on a
    # line of its own and is not lost with it. A failed write (a full disk)
    # truncates the file back to its size before it, so no half line stays.
    #
    # Reading: each line must be a JSON object with the kind's required keys,
    # and each known key's value of its type (types:).
    # Any other line (not JSON, or `[]`, `42`, `{"key":1}`) is an Error naming
    # the file and the line number. Only a last line with no newline, the one
    # a crash can leave half-written, is left out, with a notice.
    #
    # Notices (one line each) go to the block given to #read or #append.
    class JsonLines
      attr_reader :file

      # kind: what a line holds, named in errors ("trial"); required: keys
      # every record has.
      # types: {key => class} a present, non-nil value must be.
      def initialize(file, kind:, required: [], types: {})
        @file = file
        @kind = kind
        @required = required
        @types = types
      end

      def read(&notice)
        return [] unless File.file?(@file)

        text = File.binread(@file)
        lines = text.split("\n", -1)
        cut_short = lines.pop # "" when the file ends in a newline
        records = lines.each_with_index.map { |line, i| record(line, i + 1) }
        records + last_line(cut_short, lines.size + 1, notice)
      rescue SystemCallError => e
        raise Error, "cannot read #{@file}: #{Error.reason(e)}"
      end

      def append(records, &notice)
        text = Array(records).map { |r| JSON.generate(r) + "\n" }.join
        File.open(@file, File::WRONLY | File::APPEND | File::CREAT) do |f|
          size = move_fragment_aside(f, notice)
          write_or_truncate(f, text, size)
        end
      rescue SystemCallError => e
        raise Error, "cannot append to #{@file}: #{Error.reason(e)}; free space (or fix permissions) and run again"
      end

      private

      def record(line, number)
        value = JSON.parse(line.force_encoding(Encoding::UTF_8))
        unless value.is_a?(Hash) && @required.all? { |k| value.key?(k) && !value[k].nil? }
          invalid(number, "is not a #{@kind} record (#{line[0, 60]})")
        end
        wrong = @types.find { |k, type| !value[k].nil? && !value[k].is_a?(type) }
        return value unless wrong

        invalid(number, "is not a #{@kind} record: #{wrong[0]} is #{value[wrong[0]].inspect[0, 40]}, not a " \
                        "#{wrong[1] == Numeric ? 'number' : wrong[1].name.downcase}")
      rescue JSON::ParserError, EncodingError
        invalid(number, "is not JSON (#{line[0, 60].inspect})")
      end

      def invalid(number, what)
        raise Error, "#{@file} line #{number} #{what}; fix or delete that line"
      end

      # The text after the last newline: a whole record that only lacks its
      # newline is kept; anything else is a line a crash cut short.
      def last_line(text, number, notice)
        return [] if text.nil? || text.empty?

        [record(text, number)]
      rescue Error
        notice&.call("#{@file} line #{number} was cut short (a crash while writing it) and is left out")
        []
      end

      # Returns the file's size once it ends in a newline (or is empty).
      def move_fragment_aside(file, notice)
        size = file.size
        return size if size.zero? || File.open(@file, "rb") { |r| r.pread(1, size - 1) } == "\n"

        text = File.binread(@file)
        keep = (text.rindex("\n") || -1) + 1
        aside = "#{@file}.fragment-#{Clock.wall_iso8601.tr(':', '-')}"
        File.binwrite(aside, text.byteslice(keep..))
        file.truncate(keep)
        notice&.call("#{@file} ended in a line cut short (#{size - keep} bytes, from an earlier crash); " \
                     "moved it to #{File.basename(aside)} and appended after the last whole line")
        keep
      end

      # syswrite: unbuffered, so nothing is left in a buffer to be written
      # after the truncation.
      def write_or_truncate(file, text, size)
        written = 0
        written += file.syswrite(text.byteslice(written..)) while written < text.bytesize
        file.fsync
      rescue SystemCallError
        file.truncate(size) rescue nil
        raise
      end
    end
  end
end
