# frozen_string_literal: true

require_relative "../error"
require_relative "../suggest"
require_relative "dataset"
require_relative "streams"

module Rackbench
  module Report
    # The formats `rackbench report --format` renders, each registered by
    # its own file in report/formats/ with one shape: a block taking the
    # run directory (Store::RunDir) and the command's options ({margin:,
    # why:, pivot:}) and returning the rendering as a String. A new format
    # is one file there (and its test); docs/architecture.md has a worked
    # example.
    #
    #   Report::Formats.register("md", aliases: ["markdown"], help: "Markdown") { |store, opts| ... }
    #
    # A format whose rendering can be hundreds of MB (json, html, md, the
    # table: a run of 100,000 cells) streams instead: its block takes a
    # third argument, an IO, and writes into it as it goes
    # (`{ |store, opts, io| ... }`). Format#write serves both kinds, and is
    # the one way a rendering reaches a file (`report -o`, and report.html
    # at the end of run, capacity and tune: Formats.save); Format#string is
    # a rendering as one String, for every format (Streams.string).
    module Formats
      Format = Struct.new(:name, :aliases, :help, :options, :order, :render, keyword_init: true) do
        # Writes the rendering to io: as it goes when the format streams,
        # else its String in one write.
        def write(store, opts, io)
          return render.call(store, opts, io) if streams?

          io.write(render.call(store, opts))
        end

        # The rendering as one String (the table run prints, a job's summary).
        def string(store, opts) = Streams.string { |io| write(store, opts, io) }

        def streams? = render.parameters.size > 2
      end
      ALL = {} # name => Format, in the order the files register
      PAGE = "report.html" # the "html" format's page that run, capacity and tune leave in the run directory
      DIR = File.join(__dir__, "formats")

      module_function

      # options: the report command's options this format reads beyond
      # --margin and --output (:why, :pivot); others are refused for it.
      # order: where it is listed (help, messages).
      def register(name, order:, aliases: [], help: name, options: [], &render)
        ALL[name] = Format.new(name: name, aliases: aliases, help: help, options: options, order: order, render: render)
        ALL.replace(ALL.sort_by { |_, f| f.order }.to_h)
      end

      # A streaming format whose renderer takes the run's Dataset and writes
      # into an IO (Markdown, JsonDoc): renderer.new(dataset).write(io).
      def register_dataset(name, renderer, order:, aliases: [], help: name)
        register(name, order: order, aliases: aliases, help: help) do |store, opts, io|
          renderer.new(Dataset.from_store(store, margin: opts[:margin])).write(io)
        end
      end

      # Renders format name of the run directory into its file file_name
      # (report.html at the end of run, capacity and tune), streamed into a
      # temporary file renamed over it (Store::RunDir#write_atomically):
      # what `report --format NAME -o FILE` writes. Returns the file's path.
      def save(store, name, file_name, opts = {})
        format = fetch(name)
        store.write_atomically(file_name) { |io| format.write(store, opts, io) }
      end

      # report.html (PAGE), as `report DIR --format html -o DIR/report.html` would write it.
      def save_page(store) = save(store, "html", PAGE)

      def load_all
        Dir[File.join(DIR, "*.rb")].sort.each { |file| require file }
        ALL
      end

      def names
        load_all.keys
      end

      def fetch(name)
        load_all
        found = ALL[name] || ALL.values.find { |f| f.aliases.include?(name) }
        return found if found

        raise UsageError, "unknown --format #{name.inspect}#{Suggest.did_you_mean(name, names + ALL.values.flat_map(&:aliases))}; " \
                          "accepted: #{names.join(', ')}"
      end
    end
  end
end
