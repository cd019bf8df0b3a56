# frozen_string_literal: true

require "rbconfig"

module Rackbench
  module Sampling
    # One process's profile of one trial, as the in-server profile wrote it
    # (runtime/in_server_profile.rb: a key=value line, then a line per frame:
    # self samples, total samples, name, file, tab-separated), read into the
    # hash profiles.jsonl stores. A frame's file is named so it is the same
    # on both sides of a comparison: relative to the app's root (so two refs'
    # worktrees agree), a gem's from its gems/ directory on ("gems/puma-8.0.2/
    # lib/puma/server.rb"), Ruby's own library from "ruby/"; stackprof's
    # pseudo-frames ("(garbage collection)") have no file.
    #
    # Its stacks (the "s" lines) are kept as "stacks": [samples, [frame,
    # ...] root first], each frame an index into "stack_frames" ([name,
    # file], named as "frames" are, a frame at two lines one frame); the
    # samples of the stacks the server did not keep under an empty list.
    # A dump from before stacks were written has neither key. Its "q" lines
    # (a Rails app's SQL by normalized statement) are kept as "statements":
    # [statement, queries, ms], the most run first; none: no key.
    module ProfileDump
      NUMBER = /\A-?\d+(\.\d+)?\z/.freeze
      RUBY_LIB = RbConfig::CONFIG["rubylibdir"]

      module_function

      # text: the .prof file's text; root: the app's root directory.
      def parse(text, root:)
        head, *lines = text.lines(chomp: true)
        figures = head.to_s.split.to_h { |pair| pair.split("=", 2) }.transform_values { |v| number(v) }
        stack_lines, lines = lines.partition { |line| line.start_with?("s\t") }
        query_lines, lines = lines.partition { |line| line.start_with?("q\t") }
        all = lines.map do |line| # index i: the dump's frame line i
          own, total, name, file = line.split("\t", 4)
          [name, relative(file.to_s, root), own.to_i, total.to_i] if name
        end
        figures.merge("frames" => merge(all.compact.select { |f| f[2].positive? }), **stacks(stack_lines, all),
                      **statements(query_lines))
      end

      def statements(lines)
        return {} if lines.empty?

        { "statements" => lines.map { |line| line.split("\t", 4).drop(1) }.map { |n, ms, sql| [sql.to_s, n.to_i, ms.to_f] } }
      end

      # {"stacks", "stack_frames"} of the "s" lines; {} when there are none.
      def stacks(lines, all)
        return {} if lines.empty?

        ids = {}
        stacks = lines.filter_map do |line|
          _, count, path = line.split("\t", 3)
          frames = path.to_s.split(",").map { |i| all[i.to_i] }
          next if frames.any?(nil)

          [count.to_i, frames.map { |name, file| ids[[name, file]] ||= ids.size }]
        end
        { "stacks" => stacks, "stack_frames" => ids.keys }
      end

      # Frames that one name and file share (a method's blocks at different
      # lines are one frame: the identity has no line numbers).
      def merge(frames)
        frames.group_by { |name, file, _| [name, file] }.map do |(name, file), same|
          [name, file, same.sum { |f| f[2] }, same.sum { |f| f[3] }]
        end.sort_by { |f| -f[2] }
      end

      def relative(file, root)
        return "" if file.empty?

        base = "#{root.to_s.chomp('/')}/"
        return file.delete_prefix(base) if file.start_with?(base)
        return "gems/#{file.split('/gems/').last}" if file.include?("/gems/")
        return "ruby/#{file.delete_prefix("#{RUBY_LIB}/")}" if RUBY_LIB && file.start_with?("#{RUBY_LIB}/")

        file
      end

      def number(text)
        return nil if text.nil? || text.empty?
        return text unless text.match?(NUMBER)

        text.include?(".") ? text.to_f : text.to_i
      end
    end
  end
end
