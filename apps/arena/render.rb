# frozen_string_literal: true

require_relative "catalog"
require_relative "pause"
require_relative "response"
require_relative "view"

module Rackbench
  module Workload
    module Arena
      # GET /template-render — builds Catalog::COUNT item hashes and renders
      # them through the precompiled ERB page (allocation- and CPU-heavy, the
      # shape of a typical server-rendered page).
      module TemplateRender
        TITLE = "Arena catalogue"

        def self.call(_env)
          Response.html(View.render(TITLE, Catalog.items))
        end
      end

      # GET /pause-and-render/:seconds — builds the data, sleeps (as
      # /pause/:seconds), then renders: a request that both waits and computes.
      module PauseAndRender
        def self.call(_env, raw)
          seconds = Pause.parse(raw)
          items = Catalog.items
          Pause.nap(seconds)
          Response.html(View.render(TemplateRender::TITLE, items))
        end
      end
    end
  end
end
