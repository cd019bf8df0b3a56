# frozen_string_literal: true

require_relative "../error"

module Rackbench
  # A weighted mix of paths loaded together as one workload:
  # "/:5,/posts:3,/search?q=x:2" sends half the requests to /, 30% to
  # /posts and 20% to /search?q=x (each request picks a path at random by
  # weight, in the load generator). Entries are separated by commas; a
  # path's weight follows its last colon (default 1).
  class Scenario
    Entry = Struct.new(:path, :weight)

    attr_reader :entries, :label

    def self.parse(text)
      entries = text.to_s.split(",").map(&:strip).reject(&:empty?).map { |item| entry(item, text) }
      raise UsageError, "--scenario #{text.inspect} has no paths; write \"/:5,/posts:3,/search?q=x:2\"" if entries.empty?

      new(entries, text.to_s.strip)
    end

    def self.entry(item, text)
      path, sign, weight = item.match(/\A(.*?)(?::([+-]?)(\d+(?:\.\d+)?))?\z/).captures
      # "/hello:abc" was read as the path "/hello:abc": after a last colon,
      # words with no "/", "?" or "=" are a weight mistyped. A path with a
      # colon of its own takes its weight after it ("/a:b:1").
      if weight.nil? && (given = path[/:([^:\/?=]+)\z/, 1])
        raise UsageError, "--scenario #{text.inspect}: the weight of #{path.delete_suffix(":#{given}")} must be a number above 0 " \
                          "(got #{given.inspect}); a path with a colon of its own takes its weight after it (#{path}:1)"
      end
      unless path.start_with?("/") && !path.match?(/\s/)
        raise UsageError, "--scenario #{text.inspect}: #{item.inspect} must be PATH or PATH:WEIGHT with PATH starting with /"
      end
      w = weight ? "#{sign}#{weight}".to_f : 1.0
      raise UsageError, "--scenario #{text.inspect}: the weight of #{path} must be above 0 (got #{sign}#{weight})" unless w.positive?

      Entry.new(path, w)
    end
    private_class_method :entry

    def initialize(entries, label)
      @entries = entries
      @label = label
    end

    def paths
      @entries.map(&:path)
    end

    # For the wrk scripts: path weight path weight ...
    def script_args
      @entries.flat_map { |e| [e.path, format("%g", e.weight)] }
    end
  end
end
