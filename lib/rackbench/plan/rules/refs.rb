# frozen_string_literal: true

require_relative "../../error"

module Rackbench
  module Config
    module Rules
      # run --ref REF ...: what the refs may be, checked where the plan is built
      # (before anything boots). Their commits are resolved by the command
      # (Workload::GitRefs.resolve), which needs git; a stored run's refs are
      # {"name", "sha"} already.
      module Refs
        ORDER = 60 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        # Returns {refs: []} for no refs (nil in a plan file), else nil.
        def check(cfg)
          refs = Array(cfg[:refs])
          check_gate(cfg, refs)
          return cfg[:refs] == [] ? nil : { refs: [] } if refs.empty?

          names = refs.map { |r| r.is_a?(Hash) ? r["name"] : r.to_s }
          raise UsageError, "--ref compares commits of your app: give --app PATH (a directory in a git repository)" if own_app(cfg).nil?
          raise UsageError, "--ref measures the app rackbench boots: drop --url, give --app PATH" if cfg[:url]
          raise UsageError, "--ref #{names.first} alone compares nothing: give two or more, e.g. --ref main --ref HEAD" if refs.size < 2

          empty = names.find { |n| n.to_s.strip.empty? }
          raise UsageError, "--ref is empty: give a branch, tag or commit, e.g. --ref main" if empty

          twice = names.tally.find { |_, n| n > 1 }&.first
          return nil unless twice

          raise UsageError, "--ref #{twice} is given twice; to compare a commit with itself (an A/A), name it two ways: " \
                            "--ref #{twice} --ref #{twice}~0"
        end

        # --fail-if-slower on a run gates a change between refs: a percentage
        # from 0 (the --margin) up to, not including, 100.
        def check_gate(cfg, refs)
          p = cfg[:fail_if_slower]
          return if p.nil?

          unless p.is_a?(Numeric) && p.finite? && p >= 0 && p < 100
            raise UsageError, "--fail-if-slower takes a percentage from 0 up to (not including) 100, like 5 (got #{p.inspect})"
          end
          return unless refs.empty?

          raise UsageError, "--fail-if-slower on a run gates a change of your app: add --ref BASE --ref HEAD " \
                            "(or compare two stored runs: rackbench compare RUN_A RUN_B --fail-if-slower #{format('%g', p)})"
        end

        def own_app(cfg)
          app = cfg[:app]
          app.nil? || app == "arena" ? nil : app
        end
      end
    end
  end
end
