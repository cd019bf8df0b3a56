# frozen_string_literal: true

require_relative "../formats"
require_relative "../speedscope"
require_relative "../../store/profiles"

module Rackbench
  module Report
    # run --profile's stacks, one speedscope file (Speedscope); run --profile
    # leaves it in the run directory as Speedscope::FILE.
    Formats.register("speedscope", order: 6, help: "run --profile's stacks for speedscope") do |store, _opts, io|
      stacks = Stats::FrameStacks.of(Store::Profiles.new(store.path).read)
      Speedscope.new(stacks, name: File.basename(store.path.to_s.chomp("/"))).write(io)
    end
  end
end
