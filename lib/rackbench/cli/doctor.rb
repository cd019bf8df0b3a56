# frozen_string_literal: true

require_relative "command"
require_relative "../doctor"
require_relative "../plan/config"

module Rackbench
  module CLI
    # rackbench doctor [--concurrency LIST]: is this machine fit to benchmark on?
    class DoctorCommand < Command
      MARK = { ok: "ok  ", warn: "WARN", fail: "FAIL" }.freeze

      def call(argv)
        levels = [32]
        parser = OptionParser.new do |o|
          o.banner = "Usage: rackbench doctor [--concurrency LIST]"
          o.on("-c", "--concurrency LIST", Array, "the levels you plan to run (checks the open-files limit)") do |v|
            levels = Config.build(concurrency: v)[:concurrency]
          end
        end
        return 0 unless parse!(parser, argv)
        findings = Doctor.new(max_concurrency: levels.max).findings
        findings.each { |f| @out.puts format("%s  %-13s %s", MARK[f.level], f.topic, f.text) }
        findings.any? { |f| f.level == :fail } ? 1 : 0
      end
    end
  end
end
