# frozen_string_literal: true

require "optparse"
require_relative "../error"

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

      def parse!(parser, argv)
        parser.parse!(argv)
      rescue OptionParser::InvalidOption => e
        name = e.args.first.to_s.split("=").first
        hint = Suggest.did_you_mean(name, parser.top.list.flat_map(&:long))
        raise UsageError, "unknown option #{name}#{hint} (rackbench #{command_name} --help lists them)"
      rescue OptionParser::ParseError => e
        raise UsageError, "#{e.message} (rackbench #{command_name} --help)"
      end

      def command_name
        self.class.name.split("::").last.downcase
      end
    end
  end
end
