# frozen_string_literal: true

require_relative "command"
require_relative "../doctor"
require_relative "../plan/config"
require_relative "options"
require_relative "../load/remote/settings"
require_relative "../load/remote/doctor_checks"
require_relative "../load/remote/ssh"

module Rackbench
  module CLI
    # rackbench doctor [--concurrency LIST]: is this machine fit to benchmark on?
    class DoctorCommand < Command
      MARK = { ok: "ok  ", warn: "WARN", fail: "FAIL" }.freeze

      def call(argv)
        levels = [32]
        remote = {}
        parser = OptionParser.new do |o|
          o.banner = "Usage: rackbench doctor [--concurrency LIST] [--load-host [USER@]HOST[:PORT] ...]"
          o.on("-c", "--concurrency LIST", Array, "the levels you plan to run (checks the open-files limit)") do |v|
            levels = Config.build(concurrency: v)[:concurrency]
          end
          Options.define(o, remote, %i[load_hosts ssh_key ssh_known_hosts])
        end
        return 0 unless parse!(parser, argv)
        findings = Doctor.new(max_concurrency: levels.max).findings + load_hosts(remote)
        findings.each { |f| @out.puts format("%s  %-13s %s", MARK[f.level], f.topic, f.text) }
        findings.any? { |f| f.level == :fail } ? 1 : 0
      end

      private

      # Each --load-host: reachable, its wrk, cores and clock.
      def load_hosts(remote)
        hosts = Load::Remote::Host.parse_all(remote[:load_hosts])
        return [] if hosts.empty?

        key = remote[:ssh_key] && Load::Remote::Settings.file(remote[:ssh_key], "--ssh-key", "a private key file")
        known = remote[:ssh_known_hosts] &&
                Load::Remote::Settings.file(remote[:ssh_known_hosts], "--ssh-known-hosts", "a known_hosts file")
        Load::Remote::DoctorChecks.findings(hosts, Load::Remote::Ssh.new(key: key, known_hosts: known))
      end
    end
  end
end
