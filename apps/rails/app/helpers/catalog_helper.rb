# frozen_string_literal: true

# The arena view's formatting helpers, for the Rails catalogue page.
module CatalogHelper
  def money(cents)
    format("$%<dollars>d.%<cents>02d", dollars: cents / 100, cents: cents % 100)
  end

  def stars(rating)
    ("★" * rating) + ("☆" * (5 - rating))
  end
end
