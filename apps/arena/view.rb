# frozen_string_literal: true

require "erb"

module Rackbench
  module Workload
    module Arena
      # Renders the catalogue page from templates/*.erb.
      #
      # The templates are compiled once, at load time: ERB#src is turned into
      # instance methods of View by ERB#def_method, so a request pays only for
      # running Ruby, never for parsing ERB. page.html.erb calls
      # item_partial once per item (the "partial"). Values are HTML-escaped
      # with ERB::Util#h; partial output is inserted as-is.
      class View
        include ERB::Util

        TEMPLATES = File.join(__dir__, "templates")

        def self.compile(file, signature)
          path = File.join(TEMPLATES, file)
          ERB.new(File.read(path, encoding: "UTF-8"), trim_mode: "-").def_method(self, signature, path)
        end

        compile("page.html.erb", "page(title, items)")
        compile("_item.html.erb", "item_partial(item)")

        def self.render(title, items)
          new.page(title, items)
        end

        def money(cents)
          format("$%<dollars>d.%<cents>02d", dollars: cents / 100, cents: cents % 100)
        end

        def stars(rating)
          ("★" * rating) + ("☆" * (5 - rating))
        end
      end
    end
  end
end
