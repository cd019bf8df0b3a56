# frozen_string_literal: true

# Seed 001's model: a blog's articles, 10 of them (db/seeds.rb).
class Article < ApplicationRecord
end
