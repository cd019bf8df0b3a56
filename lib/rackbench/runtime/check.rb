# frozen_string_literal: true

require "json"
require_relative "../deadline"
require_relative "../error"
require_relative "flags"

module Rackbench
  module Runtime
    # What each server process runs with, as it said itself (the lines the
    # in-server probe appended to runtime.jsonl, Flags), checked against the
    # setup: "on yjit" needs YJIT on in every process that serves requests
    # (each worker; the one process of a single-process server). A setup
    # whose flag did not take fails (SetupFailed), so it is never measured
    # under a label that says what did not run.
    #
    # A process forks and is found in /proc a moment before its own probe
    # line is written, so #verify! waits for the lines up to WAIT seconds
    # (monotonic clock). A setup without a runtime word is never failed: its
    # state is stored as measured (an app may turn YJIT on itself), and a
    # warning says so when YJIT was on.
    class Check
      WAIT = 5.0

      def initialize(setup, dir:)
        @setup = setup
        @file = Flags.file(dir)
      end

      def applies?
        @setup.runtime != "jruby"
      end

      # Raises SetupFailed when the flag did not take; returns #state.
      # pids: the worker pids (a block, re-read while waiting for the lines).
      def verify!(pids_now, log_path: nil)
        return nil unless applies?

        state = nil
        Deadline.in(WAIT).wait_until(every: 0.05) { (state = state(pids_now.call))["unknown"].zero? }
        problem = problem(state)
        raise SetupFailed, "#{@setup.label}: #{problem}#{log_path ? "; see #{log_path}" : ''}" if problem

        state
      end

      # {"yjit" => {"expected", "on", "off", "unknown", "pids_off", "pids_unknown"}}
      # flattened: "expected" true/false, counts of processes by state.
      def state(pids)
        seen = lines
        by_state = pids.group_by do |pid|
          v = seen[pid]
          v.nil? ? "unknown" : (v ? "on" : "off")
        end
        { "yjit_expected" => Flags.yjit?(@setup), "processes" => pids.size,
          "on" => by_state.fetch("on", []).size, "off" => by_state.fetch("off", []).size,
          "unknown" => by_state.fetch("unknown", []).size,
          "pids_off" => by_state.fetch("off", []), "pids_unknown" => by_state.fetch("unknown", []) }
      end

      # A note for a setup without "on yjit" whose processes ran YJIT anyway.
      def note(state)
        return nil if state.nil? || state["yjit_expected"] || state["on"].zero?

        "#{@setup.label}: YJIT was on in #{state['on']} of #{state['processes']} server process(es) although the " \
          "setup does not say \"on yjit\" (the app turns it on itself); its figures are YJIT's"
      end

      private

      def problem(state)
        return nil unless state["yjit_expected"]

        if state["off"].positive?
          "\"on yjit\" did not take: YJIT is off in #{state['off']} of #{state['processes']} server process(es) " \
            "(pid #{state['pids_off'].first(5).join(', ')}); does the app or its binstubs reset RUBYOPT?"
        elsif state["unknown"].positive?
          "\"on yjit\" could not be confirmed: #{state['unknown']} of #{state['processes']} server process(es) " \
            "(pid #{state['pids_unknown'].first(5).join(', ')}) never loaded rackbench's probe from RUBYOPT; " \
            "does the app or its binstubs reset RUBYOPT?"
        end
      end

      # {pid => yjit} from the probe's lines; the last line of a pid wins.
      def lines
        File.foreach(@file).each_with_object({}) do |line, seen|
          rec = JSON.parse(line)
          seen[rec["pid"]] = rec["yjit"] if rec.is_a?(Hash) && rec["pid"].is_a?(Integer)
        rescue JSON::ParserError
          next
        end
      rescue Errno::ENOENT
        {}
      end
    end
  end
end
