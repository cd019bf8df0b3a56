# frozen_string_literal: true

module Rackbench
  module Store
    # Where a packed record's lists and the strings that differ from record
    # to record are kept (Store::PackedRecords): not as small objects of
    # their own, which, one here and one there among the garbage of parsing
    # each line, kept the memory of that garbage from being used again (a
    # 100,000-trial run's report held ~90 MB more than its records took,
    # issue 46). A list of n values is n + 1 values in a chunk of LIST_CHUNK
    # (its size, then its values: #list), a string is its bytes and a NUL in
    # a chunk of TEXT_CHUNK bytes (#pooled); each is read back new (#list_at,
    # #text_at) from its place, an Integer.
    module PackedPools
      LIST_BITS = 16
      LIST_CHUNK = 1 << LIST_BITS # values in a chunk of lists
      NO_LIST = -1 # an empty list's place
      TEXT_BITS = 20
      TEXT_CHUNK = 1 << TEXT_BITS # bytes of text in a chunk
      TEXT_MASK = TEXT_CHUNK - 1
      TEXT_MAX = 4096 # a longer string stays a String of its own (few are)

      private

      # A list of no object put in @lists (its values as #leaf keeps them,
      # the first 256's strings sampled by position): its place.
      def list(value, at)
        return NO_LIST if value.empty?

        if @lists_fill + value.size + 1 > LIST_CHUNK
          @lists << Array.new([LIST_CHUNK, value.size + 1].max)
          @lists_fill = 0
        end
        chunk = @lists.last
        place = ((@lists.size - 1) << LIST_BITS) | @lists_fill
        chunk[@lists_fill] = value.size
        value.each_with_index { |v, i| chunk[@lists_fill + 1 + i] = leaf(v, i < 256 ? -((at << 8) | i) - 1 : nil) }
        @lists_fill += value.size + 1
        place
      end

      # A new Array of the list at place (#list).
      def list_at(place)
        return [] if place == NO_LIST

        chunk = @lists[place >> LIST_BITS]
        first = (place & (LIST_CHUNK - 1)) + 1
        chunk.values_at(first...(first + chunk[first - 1])) # a copy (a slice would share the chunk)
      end

      # The place of value's bytes in @text (its chunk, offset, bytesize),
      # or nil for a string kept as it is: not UTF-8, or longer than
      # TEXT_MAX. A NUL follows each string, so that none ends its chunk
      # (a String sliced at the end of another shares its memory, and the
      # chunk written after would be copied).
      def pooled(value)
        size = value.bytesize
        return nil if size > TEXT_MAX || value.encoding != Encoding::UTF_8

        chunk = @text.last
        if chunk.nil? || chunk.bytesize + size + 1 > TEXT_CHUNK
          chunk = String.new(capacity: TEXT_CHUNK, encoding: Encoding::UTF_8)
          @text << chunk
        end
        place = ((@text.size - 1) << (2 * TEXT_BITS)) | (chunk.bytesize << TEXT_BITS) | size
        chunk << value << "\0"
        place
      end

      # A new String of the text at place (#pooled): byteslice keeps the
      # chunk's encoding, UTF-8.
      def text_at(place)
        @text[place >> (2 * TEXT_BITS)].byteslice((place >> TEXT_BITS) & TEXT_MASK, place & TEXT_MASK)
      end
    end
  end
end
