# frozen_string_literal: true

require_relative "catalog"
require_relative "render"
require_relative "response"
require_relative "upstream_client"
require_relative "view"

module Rackbench
  module Workload
    module Arena
      # GET /network-io — one real HTTP round trip to the upstream stub
      # (socket I/O that releases the GVL); answers the time taken and the
      # bytes received. 503 without RACKBENCH_UPSTREAM_URL, 502 on failure.
      module NetworkIo
        def self.call(_env)
          fetched = UpstreamClient.fetch
          Response.json({ url: fetched.url, status: fetched.status,
                          bytes: fetched.body.bytesize, ms: fetched.ms })
        end
      end

      # GET /network-io-and-render — the same round trip, then the catalogue
      # page rendered with item names taken from the fetched body's words.
      module NetworkIoAndRender
        def self.call(_env)
          fetched = UpstreamClient.fetch
          Response.html(View.render(TemplateRender::TITLE, Catalog.from_text(fetched.body)))
        end
      end
    end
  end
end
