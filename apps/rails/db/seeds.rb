# frozen_string_literal: true

# Creates seed 001's blog in db/production.sqlite3: the articles table and
# its 10 rows. Idempotent: bin/setup runs it on every call, and it leaves a
# database that already holds the 10 rows as it is.
#   bundle exec ruby db/seeds.rb   (RAILS_ENV=production, from apps/rails)
ENV["RAILS_ENV"] ||= "production"
ENV["SECRET_KEY_BASE"] ||= "seeding-only-not-served"
require_relative "../config/environment"

ActiveRecord::Schema.define do
  create_table :articles, if_not_exists: true do |t|
    t.string :title, null: false
    t.text :body, null: false
    t.timestamps
  end
end

if Article.count != 10
  Article.delete_all
  10.times do |i|
    Article.create!(title: "Article #{i + 1}",
                    body: "The body of article #{i + 1}: a paragraph of a small blog, as seed 001's scaffold showed.")
  end
end
puts "db/production.sqlite3: #{Article.count} articles"
