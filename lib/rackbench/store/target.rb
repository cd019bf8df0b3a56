# frozen_string_literal: true

require_relative "../error"
require_relative "lock"

module Rackbench
  module Store
    # Where a new run may be written, checked before anything boots.
    #
    # A run directory is rackbench's database, so a target is refused when
    # writing there could lose or invent data: an empty path (an unset $DIR
    # in a script would otherwise mean the working directory or "/"), the
    # filesystem root, a file, a directory holding another run, a directory
    # holding run files without a readable meta.json (not a run that can be
    # continued), or a non-empty directory that is not a run directory.
    # Paths are expanded here, once: servers run in their app's directory,
    # so every path handed to them must be absolute.
    module Target
      RUN_FILES = %w[meta.json trials.jsonl setups.jsonl samples.jsonl capacity.jsonl tune.jsonl warnings.jsonl].freeze
      # What a directory may hold and still count as empty: our own lock and
      # the logs/ folder a run creates first.
      HARMLESS = %w[. .. .rackbench.lock logs processes.jsonl].freeze

      module_function

      # The absolute path of a new run directory; raises UsageError when the
      # target is refused.
      def check_new(path, option: "--out")
        path = expand(path, option: option)
        raise UsageError, "#{option} #{path} is the filesystem root: give a directory for the run, e.g. #{option} runs/first" if path == "/"
        raise UsageError, "#{option} #{path} is a file, not a directory: give a new directory for the run" if File.exist?(path) && !File.directory?(path)
        return path unless File.directory?(path)

        check_existing_dir(path, option)
        path
      end

      # Expands a path given by the user; an empty one is refused.
      def expand(path, option: "--out", base: Dir.pwd)
        if path.nil? || path.to_s.strip.empty?
          raise UsageError, "#{option} is empty: give a directory, e.g. #{option} runs/first " \
                            "(an unset variable in a script?)"
        end

        File.expand_path(path.to_s, base)
      end

      def check_existing_dir(path, option)
        busy = Lock.busy(path)
        raise Error, busy if busy
        if File.file?(File.join(path, "meta.json"))
          raise UsageError, "#{path} already holds a run; continue it with rackbench run --resume #{path} " \
                            "or choose another #{option}"
        end
        found = RUN_FILES.select { |f| File.exist?(File.join(path, f)) }
        if found.any?
          raise UsageError, "#{path} holds #{found.join(', ')} but no meta.json: it is not a run rackbench can continue " \
                            "(move it aside, or choose another #{option})"
        end
        extra = Dir.entries(path) - HARMLESS
        return if extra.empty?

        raise UsageError, "#{path} is not empty and is not a run directory (it holds #{extra.first(3).join(', ')}" \
                          "#{extra.size > 3 ? ', ...' : ''}): give a new or empty directory with #{option}"
      end
    end
  end
end
