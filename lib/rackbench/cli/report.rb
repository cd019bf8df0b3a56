# frozen_string_literal: true

require_relative "command"
require_relative "../store/run_dir"
require_relative "../store/own_files"
require_relative "../report/formats"
require_relative "options"
require_relative "output_file"

module Rackbench
  module CLI
    # rackbench report RUN_DIR [--format F] [--pivot P] [--output FILE] [--why]:
    # re-render a stored run from its directory alone.
    class ReportCommand < Command
      PIVOTS = %w[endpoint concurrency].freeze

      def call(argv)
        opts = options(argv) or return 0
        path = argv.shift or raise UsageError, "give the run directory to render: rackbench report RUN_DIR"
        raise UsageError, "unexpected argument #{argv.first.inspect}; give one run directory" unless argv.empty?

        store = Store::RunDir.open(path)
        readable!(store)
        refuse_owned_output!(store, opts[:output], opts[:format])
        emit(store, opts)
        print_notices(store)
        0
      end

      private

      # Declared once in CLI::Options, with their defaults; the margin's is
      # the stored run's first.
      OPTIONS = %i[format pivot output why margin].freeze
      BANNER = "Usage: rackbench report RUN_DIR [options]\n\n" \
               "Re-renders a stored run from its directory alone (meta.json, trials.jsonl, setups.jsonl).\n\n"
      FOOTER = ["", "Every figure is the median of a cell's repetitions; html and json add a 95% t-interval.",
                "json follows the schema rackbench.report/1 (docs/report-json.md)."].freeze

      def options(argv)
        opts = parse_declared(argv, BANNER, OPTIONS, footer: FOOTER, rules: { margin: "the run's, #{Options::MARGIN_DEFAULT}" })
        opts && validate(opts)
      end

      def validate(opts)
        format = Report::Formats.fetch(opts[:format])
        opts[:format] = format.name
        if opts[:pivot] && !PIVOTS.include?(opts[:pivot])
          raise UsageError, "unknown --pivot #{opts[:pivot].inspect}; accepted: #{PIVOTS.join(', ')}"
        end
        raise UsageError, "--pivot applies to --format csv only" if opts[:pivot] && !format.options.include?(:pivot)
        if opts[:why] && !format.options.include?(:why)
          raise UsageError, "--why applies to the terminal table; --format #{opts[:format]} carries the reasons already"
        end

        opts
      end

      # trials.jsonl must be a regular file (a FIFO or a link to a device
      # would hang or never end), and a directory with neither trials nor
      # setups has nothing to render.
      def readable!(store)
        trials = File.join(store.path, "trials.jsonl")
        unreadable_link!(trials)
        if File.exist?(trials) && !File.file?(trials)
          raise Error, "#{trials} is not a regular file (#{File.ftype(trials)}): a run's trials.jsonl is a plain file; " \
                       "point report at the run directory rackbench wrote"
        end
        return if File.file?(trials) || File.file?(File.join(store.path, "setups.jsonl"))

        raise Error, "#{store.path} holds no trials.jsonl and no setups.jsonl: nothing was measured there yet " \
                     "(a run still booting, or not a run directory)"
      end

      # A link that leads nowhere or to itself (ELOOP) is a trials.jsonl that
      # cannot be read, not "nothing measured" (issue 46, C4).
      def unreadable_link!(trials)
        return unless File.symlink?(trials) && !File.exist?(trials)

        File.stat(trials)
      rescue SystemCallError => e
        raise Error, "cannot read #{trials}: #{Error.reason(e)}"
      end

      # The run's own files are never overwritten by a rendering (-o
      # DIR/trials.jsonl would replace the trials with CSV): not by name,
      # through a symlink, nor through a hard link (the same inode under
      # another name: Store::OwnFiles.same_file).
      def refuse_owned_output!(store, output, format)
        return if output.nil?

        same = Store::OwnFiles.same_file(store.path, Store::RunDir::OWN, output)
        return unless owned_name?(store, output) || same

        ext = { "table" => "txt" }.fetch(format, format)
        link = same && same != File.expand_path(output) ? " (a link to #{same})" : ""
        raise UsageError, "--output #{output} is one of the run's own files#{link}; write the rendering elsewhere, " \
                          "e.g. --output #{File.join(store.path, "rendered.#{ext}")}"
      end

      def owned_name?(store, output)
        full = resolved(output)
        dir = resolved(store.path)
        logs = File.join(dir, "logs") + "/"
        inside = File.dirname(full) == dir || full.start_with?(logs)
        inside && (Store::RunDir::OWN.include?(File.basename(full)) || full.start_with?(logs))
      end

      # The path a write would reach: symlinks (of the file and of its
      # directories) followed, so a link onto trials.jsonl is seen for what it is.
      def resolved(path, depth = 0)
        full = File.expand_path(path)
        return full if depth > 40 # a loop of links: the write fails on it anyway
        return File.realpath(full) if File.exist?(full)
        return resolved(File.expand_path(File.readlink(full), File.dirname(full)), depth + 1) if File.symlink?(full) # dangling

        File.join(resolved(File.dirname(full), depth + 1), File.basename(full))
      rescue SystemCallError
        full
      end

      # The format's own renderer (Report::Formats#write: json, html, md
      # and the table stream into the IO as they render). A failed write
      # to standard output is the CLI's (CLI::OutputFailed).
      def emit(store, opts)
        format = Report::Formats.fetch(opts[:format])
        output = opts[:output] or return format.write(store, opts, @out)

        write_file(output) { |io| format.write(store, opts, io) }
        @err.puts "Wrote #{output}"
      end

      # The file is opened at the first write (OutputFile), so a rendering
      # that fails before writing leaves the file as it was.
      def write_file(output, &)
        OutputFile.open(output, &)
      rescue SystemCallError => e
        raise Error, "cannot write #{output}: #{Error.reason(e)}; choose another --output"
      end
    end
  end
end
