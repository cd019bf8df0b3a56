# frozen_string_literal: true

require "json"
require_relative "../clock"
require_relative "../error"
require_relative "schema"
require_relative "regular_file"

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
    # and fit the kind's schema (Store::Schema: types, nested ones too, and
    # numbers within reach). Any other line (not JSON, or `[]`, `42`,
    # `{"key":1}`, `"latency_ms":{"mean":"x"}`) is an Error naming the file and
    # the line number; a blank line is skipped. Only a last line with no
    # newline, the one a crash can leave half-written, is left out, with a
    # notice; so is, with unique:, a line that repeats an earlier one word
    # for word (a copy, which must not count as another measurement).
    #
    # Notices (one line each) go to the block given to #read or #append.
    class JsonLines
      TEXT = /[^\s\0]/ # what a line that is not blank holds (what String#strip would leave)

      attr_reader :file

      # kind: what a line holds, named in errors ("trial"); required: keys
      # every record has; schema: Store::Schema's for the kind.
      def initialize(file, kind:, required: [], schema: {}, unique: false)
        @file = file
        @kind = kind
        @required = required
        @schema = schema
        @unique = unique
      end

      # Streams the file a line at a time (a run of 100,000 trials is never
      # held twice, as text and as records).
      def read(&notice)
        return [] unless File.file?(@file) || File.symlink?(@file) # a link that leads nowhere (ELOOP too): an Error

        records = []
        seen = {} # line hash => where its record is (#copy?), for unique:
        File.open(@file, "rb") do |f|
          f.each_line.with_index(1) do |line, number|
            next unless line.match?(TEXT) # a blank line (an editor's last newline) holds no record
            next records.concat(last_line(line, number, notice)) unless line.end_with?("\n")

            value = record(line, number) # its newline read as JSON's whitespace: no copy of a 3 KB line, twice
            records << value unless @unique && copy?(seen, line.hash, number, value, records, notice)
          end
        end
        records
      rescue SystemCallError => e
        raise Error, "cannot read #{@file}: #{Error.reason(e)}"
      end

      def append(records, &notice)
        text = Array(records).map { |r| JSON.generate(r) + "\n" }.join
        RegularFile.open(@file, File::WRONLY | File::APPEND | File::CREAT) do |f|
          size = move_fragment_aside(f, notice)
          write_or_truncate(f, text, size)
        end
      rescue SystemCallError => e
        raise Error, "cannot append to #{@file}: #{Error.reason(e)}; free space (or fix permissions) and run again"
      end

      private

      # True (said in a notice) when value repeats an earlier line's record:
      # a copied line, which must not count as another measurement. seen:
      # line hash => the line's number << 32 | its record's index in
      # records (a list of them where lines of one hash differ), an Integer
      # a line, not two Arrays (1 GB of trials is 385,000 lines).
      def copy?(seen, hash, number, value, records, notice)
        at = (number << 32) | records.size
        found = seen[hash]
        if found.nil? # the usual case: a line unlike any before
          seen[hash] = at
          return false
        end

        earlier = Array(found).find { |place| records[place & 0xFFFF_FFFF] == value }
        return notice_copy(number, earlier >> 32, notice) if earlier

        seen[hash] = Array(found) << at
        false
      end

      def notice_copy(number, earlier, notice)
        notice&.call("#{@file} line #{number} repeats line #{earlier} word for word (a copy, not another " \
                     "measurement) and is left out")
        true
      end

      # line: with or without its newline.
      def record(line, number)
        value = shared(JSON.parse(line.force_encoding(Encoding::UTF_8)))
        unless value.is_a?(Hash) && @required.all? { |k| value.key?(k) && !value[k].nil? }
          invalid(number, "is not a #{@kind} record (#{line[0, 60].chomp})")
        end
        wrong = Schema.problem(value, @schema)
        return value unless wrong

        invalid(number, "is not a #{@kind} record: #{wrong}")
      rescue JSON::ParserError, EncodingError
        invalid(number, "is not JSON (#{line[0, 60].chomp.inspect})")
      end

      # The record with each string value deduplicated (frozen, one copy
      # of each text: a setup's label, an engine, a command line's words):
      # 100,000 trials held by a report take a sixth less memory.
      def shared(value)
        case value
        when String then -value
        when Hash then value.transform_values! { |v| shared(v) }
        when Array then value.map! { |v| shared(v) }
        else value
        end
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
        RegularFile.replace(aside, text.byteslice(keep..))
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
