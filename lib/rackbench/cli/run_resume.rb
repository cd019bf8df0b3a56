# frozen_string_literal: true

require "shellwords"
require_relative "../error"
require_relative "../clock"
require_relative "../version"
require_relative "../plan/config"
require_relative "../store/run_dir"
require_relative "../store/not_writable"
require_relative "../process_control/journal"
require_relative "../process_control/stop"
require_relative "resume_trust"

module Rackbench
  module CLI
    # run --resume DIR: what makes a run directory safe to go on with (this
    # version wrote it, it is a run's and not a search's, the app and hosts
    # given again: ResumeTrust), its writer lock, and the processes a killed
    # rackbench left in it. RunCommand measures what is left.
    class RunResume
      def initialize(argv_seen:, err:)
        @argv_seen = argv_seen
        @err = err
      end

      # The run directory checked and locked, survivors stopped, the
      # resume recorded in meta.json: [config, store] to measure on.
      def prepare(cli, plan_path)
        extra = cli.keys - %i[resume quiet] - ResumeTrust::KEYS
        if plan_path || extra.any?
          raise UsageError, "--resume takes the plan from the run directory; drop #{plan_path || Config.flag(extra.first)}"
        end

        store = Store::RunDir.open(cli[:resume])
        resumable!(store)
        ResumeTrust.check!(store.path, store.meta.fetch("config"), cli)
        lock(store)
        stop_survivors(store)
        refuse_search_resume(store)
        config = Config.load(store.meta.fetch("config").merge("quiet" => cli[:quiet] || false))
        meta = store.meta
        (meta["resumed"] ||= []) << { "at" => Clock.wall_iso8601, "trials_stored" => store.trials.size }
        meta["run_dir"] = File.expand_path(store.path) # a copied run goes on where it is now
        store.write_meta(meta)
        [config, store]
      end

      # The run's writer lock (Store::NotWritable: another user's run is one line).
      def lock(store)
        store.lock!(["rackbench", "run", *@argv_seen].join(" "))
      rescue *Store::NotWritable::ERRORS => e
        raise Store::NotWritable.error(store.path, e)
      end

      # A run that holds its plan and configuration, written by this
      # version: trials measured by two versions are never mixed in one run.
      def resumable!(store)
        meta = store.meta
        missing = %w[config plan].reject { |k| meta[k].is_a?(Hash) }
        unless missing.empty?
          raise Error, "#{store.path} was not written by rackbench run (meta.json has no #{missing.join(' and no ')}): " \
                       "it cannot be resumed"
        end
        return if meta["rackbench"] == VERSION

        made = meta["rackbench"] ? "rackbench #{meta['rackbench']}" : "an unknown rackbench version (meta.json names none)"
        raise Error, "#{store.path} was made by #{made}, not this rackbench #{VERSION}: resuming would mix trials of two " \
                     "versions in one run; run again with a new --out (rackbench report #{store.path} still reads it)"
      end

      # capacity and tune choose each level from the ones before, in one
      # process: there is no plan to continue. Say so, and what to run.
      def refuse_search_resume(store)
        command = store.meta["command"]
        return unless %w[capacity tune].include?(command)

        store.unlock
        # Its own --out left out of the command shown: run as shown, it makes a new directory (the one
        # named would refuse again, as it exists).
        again = store.meta["argv"] ? Shellwords.join(without_out(store.meta["argv"])) : "rackbench #{command} ..."
        raise UsageError, "#{store.path} holds a rackbench #{command} run, which cannot be resumed (each level depends " \
                          "on the ones before): run it again (#{again}) with a new --out; " \
                          "its stored trials stay readable with rackbench report #{store.path}"
      end

      private

      def without_out(argv)
        argv.each_with_index.reject { |a, i| a.match?(/\A(-o|--out)(=|\z)/) || %w[-o --out].include?(argv[i - 1]) && i.positive? }
            .map(&:first)
      end

      # Processes a killed rackbench left running in this run (servers still
      # holding pid files and ports): stopped before anything boots.
      def stop_survivors(store)
        left = ProcessControl::Journal.survivors(store.path)
        return if left.empty?

        what = ProcessControl::Stop.describe(left)
        ProcessControl::Stop.processes(left)
        @err.puts "Stopped #{left.size} process(es) a killed rackbench left running in this run: #{what}"
      end
    end
  end
end
