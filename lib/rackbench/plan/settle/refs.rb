# frozen_string_literal: true

require_relative "../../workload/app"
require_relative "../../workload/git_refs"

module Rackbench
  module Config
    module Settle
      # run --ref: each ref resolved to its commit before anything boots
      # (meta.json keeps {"name", "sha"}, so --resume checks out the same
      # code and settles nothing here). The notes say each ref's commit; the
      # warnings a ref's caveat (Workload::GitRefs).
      module Refs
        ORDER = 10

        module_function

        def settle(cfg, world)
          given = cfg[:refs]
          return nil if given.empty? || given.all?(Hash)

          app = Workload::App.resolve(cfg[:app])
          refs = Workload::GitRefs.resolve(app.root, given, config_ru: app.config_ru)
          Workload::GitRefs.notes(app.root, refs).each { |text| world.note(text) }
          Workload::GitRefs.warnings(app.root, refs).each { |text| world.warning(text) }
          { refs: refs.map(&:to_h) }
        end
      end
    end
  end
end
