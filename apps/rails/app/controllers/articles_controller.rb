# frozen_string_literal: true

# Seed 001's page: the scaffolded index of a blog's 10 articles, read from
# SQLite on every request (no caching), rendered with the scaffold's table.
class ArticlesController < ApplicationController
  def index
    @articles = Article.order(:id).to_a
  end
end
