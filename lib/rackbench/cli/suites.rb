# frozen_string_literal: true

require "etc"
require_relative "command"
require_relative "../suites"

module Rackbench
  module CLI
    # rackbench suites [NAME]: the built-in suites, one line each, or one
    # suite's description and settings on this machine's cores.
    class SuitesCommand < Command
      WIDTH = 100
      def call(argv)
        parser = OptionParser.new("Usage: rackbench suites [NAME]\n\nLists the built-in suites; with NAME, " \
                                  "what that suite runs on this machine (#{cores} cores).")
        return 0 unless parse!(parser, argv)
        raise UsageError, "give at most one suite name, got #{argv.join(' ')}" if argv.size > 1

        argv.empty? ? list : show(argv.first)
        0
      end

      private

      def cores
        Etc.nprocessors
      end

      def list
        width = Suites.names.map(&:size).max
        Suites::ALL.each do |name, suite|
          @out.puts format("%-#{width}s [%s] %s; quick ~%s, full ~%s", name, suite::SEED || "new", suite.summary,
                           estimate(name, true), estimate(name, false))
        end
        @out.puts
        @out.puts "[seed] the study reproduced (../shared/seeds), [new] a comparison no seed made; times are " \
                  "estimates on this machine's #{cores} cores."
        @out.puts "rackbench run --suite NAME [--quick] runs one; rackbench suites NAME shows its settings."
      end

      def show(name)
        suite = Suites.fetch(name)
        @out.puts "#{name}: #{suite.summary} [#{suite::SEED ? "seed #{suite::SEED}" : 'new'}: #{suite::TITLE}]"
        @out.puts
        suite.description(cores).split(/\n\s*\n/).each { |para| @out.puts wrap(para.split.join(" ")), "" }
        { "quick" => true, "full" => false }.each do |mode, quick|
          @out.puts "#{mode} (~#{estimate(name, quick)} here):"
          Suites.settings(name, cores: cores, quick: quick).each do |key, value|
            @out.puts format("  %-15s %s", key, Array(value).join(key == :setups ? " | " : ", "))
          end
        end
      end

      def wrap(text, width = WIDTH)
        text.scan(/\S.{0,#{width - 2}}(?=\s|\z)|\S+/).join("\n")
      end

      def estimate(name, quick)
        settings = Suites.settings(name, cores: cores, quick: quick)
        Suites.duration_text(Suites.estimate_s(settings))
      end
    end
  end
end
