# frozen_string_literal: true

# Seed 000's endpoints (the "Rails server benchmark" study's
# BenchmarksController) answering as the arena does, from the arena's own
# data, checks and upstream client: the same work inside a Rails request.
# Bad parameters get a 400, a missing or failing upstream a 503/502.
class BenchmarksController < ApplicationController
  Arena = Rackbench::Workload::Arena
  TITLE = "Arena catalogue"

  rescue_from Arena::Halt do |error|
    render plain: "#{error.message}\n", status: error.status
  end

  def hello
    render plain: "Hello, world!\n"
  end

  def health
    render plain: "ok\n"
  end

  def server
    render json: Arena::ServerInfo.report(request.env)
  end

  def fibonacci
    n = Arena::Params.integer(params[:number], Arena::Fibonacci::RANGE, "n")
    started = Arena::Clock.now
    value = Arena::Fibonacci.fib(n)
    render json: { n: n, value: value, ms: Arena::Clock.ms_since(started) }
  end

  def template_render
    catalog(Arena::Catalog.items)
  end

  def pause
    seconds = Arena::Pause.parse(params[:seconds])
    Arena::Pause.nap(seconds)
    render json: { slept: seconds }
  end

  def pause_and_render
    seconds = Arena::Pause.parse(params[:seconds])
    items = Arena::Catalog.items
    Arena::Pause.nap(seconds)
    catalog(items)
  end

  def network_io
    fetched = Arena::UpstreamClient.fetch
    render json: { url: fetched.url, status: fetched.status, bytes: fetched.body.bytesize, ms: fetched.ms }
  end

  def network_io_and_render
    catalog(Arena::Catalog.from_text(Arena::UpstreamClient.fetch.body))
  end

  private

  def catalog(items)
    @title = TITLE
    @items = items
    render :catalog
  end
end
