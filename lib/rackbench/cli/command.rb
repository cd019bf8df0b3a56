# frozen_string_literal: true

require "optparse"
require_relative "../error"
require_relative "options"

module Rackbench
  module CLI
    # Shared plumbing of subcommands: streams, option parsing that turns
    # OptionParser's errors into one-line usage errors.
    class Command
      def initialize(out:, err:, env:)
        @out = out
        @err = err
        @env = env
      end

      private

      # Parses argv in place; false when --help was shown (every command has
      # -h/--help; the caller then returns 0).
      def parse!(parser, argv)
        parser.on("-h", "--help", "this help") do
          @out.puts parser.help
          throw :rackbench_help
        end
        catch(:rackbench_help) do
          parser.parse!(argv)
          return true
        end
        false
      rescue OptionParser::InvalidOption => e
        name = e.args.first.to_s.split("=").first
        hint = Suggest.did_you_mean(name, parser.top.list.flat_map(&:long))
        raise UsageError, "unknown option #{name}#{hint} (rackbench #{command_name} --help lists them)"
      rescue OptionParser::ParseError => e
        raise UsageError, "#{e.message} (rackbench #{command_name} --help)"
      end

      # Parses argv in place with the declared options named by keys
      # (CLI::Options.define: defaults, rules, required); the values, or nil
      # when --help was shown. footer: lines the help ends with.
      def parse_declared(argv, banner, keys, footer: [], **how)
        values = {}
        parser = OptionParser.new do |o|
          o.banner = banner
          Options.define(o, values, keys, **how)
          footer.each { |line| o.separator(line) }
        end
        parse!(parser, argv) && values
      end

      # Prints what reading a run directory noticed (a cut-short last line left out).
      def print_notices(*stores)
        stores.flat_map(&:notices).uniq.each { |text| @err.puts "Warning: #{text}" }
      end

      def command_name
        self.class.name.split("::").last.delete_suffix("Command").downcase
      end
    end
  end
end
