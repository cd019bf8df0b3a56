# frozen_string_literal: true

# The arena's paths (format: false and a looser constraint, so "0.05" is one
# parameter, not "0" with a format).
Rails.application.routes.draw do
  scope format: false, controller: "benchmarks" do
    get "hello", action: :hello
    get "health", action: :health
    get "server", action: :server
    get "fibonacci/:number", action: :fibonacci, constraints: { number: %r{[^/]+} }
    get "template-render", action: :template_render
    get "pause/:seconds", action: :pause, constraints: { seconds: %r{[^/]+} }
    get "pause-and-render/:seconds", action: :pause_and_render, constraints: { seconds: %r{[^/]+} }
    get "network-io", action: :network_io
    get "network-io-and-render", action: :network_io_and_render
  end
  # Seed 001's page: the scaffolded index of 10 articles from SQLite.
  get "articles", to: "articles#index", format: false
end
