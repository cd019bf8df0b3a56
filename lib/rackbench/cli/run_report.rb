# frozen_string_literal: true

require_relative "../report/formats"
require_relative "../report/answer_text"
require_relative "../report/failures"
require_relative "../suites/findings"
require_relative "../stats/looks"
require_relative "../stats/ref_gate"
require_relative "../stats/gate_where"
require_relative "../report/dataset"
require_relative "../report/speedscope"
require_relative "../store/packed_trials"
require_relative "../test_seam"
require_relative "ref_gate"
require_relative "step_summary"

module Rackbench
  module CLI
    # What run says once its rounds are measured, in the order a user reads
    # it on a terminal: the table as `rackbench report` renders it (the
    # answer first) and a suite's findings on stdout; the run directory,
    # report.html and --ref's gate on stderr; then the Answer again, last
    # (stdout): a run's last lines were the path of report.html, with the
    # answer a screen or more above. In a GitHub Actions job the gate and
    # the Markdown report go to the job's summary page. Returns the status.
    class RunReport
      def initialize(out:, err:, env:)
        @out = out
        @err = err
        @env = env
      end

      def call(store, plan)
        table = Report::Formats.fetch("table").string(store, {})
        @out.write(table)
        Suites::Findings.report(store, io: @out)
        @err.puts "Run directory: #{store.path}"
        TestSeam.hold(:report, err: @err, env: @env)
        @err.puts "Report: #{Report::Formats.save_page(store)}"
        speedscope(store) if plan.config[:profile]
        gate = ref_gate(store, plan)
        step_summary(store, gate)
        @err.puts gate.sentence if gate
        @out.write(Report::AnswerText.block(table))
        # A run that failed fails the gate too (closed); else the gate's own.
        # Its trials read packed, as the table and the page read them.
        return 1 if Report::Failures.new(store.setups, Store::PackedTrials.read(store)).any?

        gate ? gate.status : 0
      end

      private

      # run --profile: the stacks as a speedscope file in the run directory
      # (Report::Speedscope), what `report DIR --format speedscope` writes;
      # none when no profile holds a stack (each failure was warned of).
      def speedscope(store)
        @err.puts "Profiles: #{Report::Formats.save(store, 'speedscope', Report::Speedscope::FILE)} (open it in speedscope)"
      rescue Error => e
        @err.puts "Profiles: none written (#{e.message})"
      end

      # run --ref ... --fail-if-slower P (CLI::RefGate), which says what
      # stopped --decide's rounds when it is undecided, and with --profile
      # where a slower cell's time went (Stats::GateWhere).
      def ref_gate(store, plan)
        percent = plan.config[:fail_if_slower] or return nil
        share = Stats::Gate.share(percent, plan.config[:margin])
        found = Stats::RefGate.new(store.trials, plan.ref_groups, margin: share, looks: Stats::Looks.for_config(plan.config))
        RefGate.new(found, percent: percent, share: share, decide_stop: RefGate.decide_stop(store.trials, plan.config),
                           where: plan.config[:profile] ? where(store, found) : nil)
      end

      # The answer's attributions (Report::Dataset: the report's own reading of the run).
      def where(store, gate)
        data = Report::Dataset.from_store(store)
        Stats::GateWhere.new(gate, attributions: data.attributions, times: -> { data.frame_times })
      end

      # In a GitHub Actions job ($GITHUB_STEP_SUMMARY set): the gate's
      # sentence and the Markdown report (the answer first) appended to the
      # job's summary page (CLI::StepSummary: never waits on a FIFO).
      def step_summary(store, gate)
        path = @env["GITHUB_STEP_SUMMARY"]
        return if path.nil? || path.empty?

        text = "#{gate ? "**#{gate.sentence}**\n\n" : ''}#{Report::Formats.fetch('md').string(store, {})}\n"
        StepSummary.append(path, text, err: @err)
      end
    end
  end
end
