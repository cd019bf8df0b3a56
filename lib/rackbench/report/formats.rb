# frozen_string_literal: true

require_relative "../error"
require_relative "../suggest"
require_relative "dataset"

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
    # third argument, an IO, writes into it as it goes, and returns the
    # String only when that IO is nil (`{ |store, opts, io = nil| ... }`).
    # Format#write serves both kinds; `render.call(store, opts)` is a String
    # for every format.
    module Formats
      Format = Struct.new(:name, :aliases, :help, :options, :order, :render, keyword_init: true) do
        # Writes the rendering to io: as it goes when the format streams,
        # else its String in one write.
        def write(store, opts, io)
          return render.call(store, opts, io) if streams?

          io.write(render.call(store, opts))
        end

        def streams? = render.parameters.size > 2
      end
      ALL = {} # name => Format, in the order the files register
      DIR = File.join(__dir__, "formats")

      module_function

      # options: the report command's options this format reads beyond
      # --margin and --output (:why, :pivot); others are refused for it.
      # order: where it is listed (help, messages).
      def register(name, order:, aliases: [], help: name, options: [], &render)
        ALL[name] = Format.new(name: name, aliases: aliases, help: help, options: options, order: order, render: render)
        ALL.replace(ALL.sort_by { |_, f| f.order }.to_h)
      end

      # A format whose renderer takes the run's Dataset (Html, Markdown,
      # JsonDoc): renderer.new(dataset).render, or with stream: true
      # renderer.new(dataset).write(io) (see above).
      def register_dataset(name, renderer, order:, aliases: [], help: name, stream: false)
        if stream
          register(name, order: order, aliases: aliases, help: help) do |store, opts, io = nil|
            rendering = renderer.new(Dataset.from_store(store, margin: opts[:margin]))
            io ? rendering.write(io) : rendering.render
          end
        else
          register(name, order: order, aliases: aliases, help: help) do |store, opts|
            renderer.new(Dataset.from_store(store, margin: opts[:margin])).render
          end
        end
      end

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
