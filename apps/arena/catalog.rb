# frozen_string_literal: true

module Rackbench
  module Workload
    module Arena
      # The data the render endpoints feed to the template: COUNT product
      # hashes, rebuilt on every request (allocation is part of the workload)
      # but deterministic — a fixed Random seed — so every server renders the
      # same page. #from_text derives the names from fetched text instead
      # (network-io-and-render), still COUNT items so the render cost matches.
      module Catalog
        COUNT = 400
        SEED = 20_240_501
        ADJECTIVES = %w[Small Sturdy Quiet Rapid Shiny Gentle Bold Rustic Modern Classic].freeze
        NOUNS = %w[Lamp Kettle Chair Notebook Backpack Teapot Clock Blanket Mirror Bicycle Shelf Mug].freeze
        TAGS = %w[new sale eco handmade bestseller gift imported limited].freeze
        WORD = /[[:alpha:]]{3,}/
        TAG_OR_ENTITY = /<[^>]*>|&[#\w]+;/

        module_function

        def items(names: nil, count: COUNT)
          rng = Random.new(SEED)
          Array.new(count) { |index| item(index, rng, names) }
        end

        # Names of three words each, taken in order from the text's words
        # (markup stripped, read as UTF-8 with invalid bytes replaced); the
        # default names when the text has no words.
        def from_text(text, count: COUNT)
          words = String.new(text, encoding: Encoding::UTF_8).scrub.gsub(TAG_OR_ENTITY, " ").scan(WORD)
          names = words.each_slice(3).map { |slice| slice.join(" ") }
          items(names: names.empty? ? nil : names, count: count)
        end

        def item(index, rng, names)
          {
            id: index + 1,
            name: names ? names[index % names.size] : default_name(index),
            price_cents: rng.rand(199..99_999),
            stock: rng.rand(0..25),
            rating: rng.rand(1..5),
            tags: TAGS.sample(rng.rand(0..3), random: rng),
            featured: (index % 7).zero?
          }
        end

        def default_name(index)
          "#{ADJECTIVES[index % ADJECTIVES.size]} #{NOUNS[(index / ADJECTIVES.size) % NOUNS.size]} ##{index + 1}"
        end
      end
    end
  end
end
