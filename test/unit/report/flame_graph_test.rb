# frozen_string_literal: true

require "test_helper"
require "rackbench/report/html/flame_graph"
require_relative "profile_stacks_fixture"
require_relative "run_fixture"

# A decided pair's differential flame graph (run --profile): B's stacks,
# each frame coloured by its decided change against A, labels escaped.
class FlameGraphTest < Minitest::Test
  F = Rackbench::ProfileStacksFixture
  G = Rackbench::Report::Html::FlameGraph

  def graph
    G.new(F.attribution, F.stacks.fetch(["/fib", 2, F::B]))
  end

  def test_the_stacks_merge_over_rounds_and_processes
    b = F.stacks.fetch(["/fib", 2, F::B])
    assert_equal 6, b.rounds
    assert_equal F::NOISE.sum { |e| F::SELF.values.sum { |(_, n)| (n * (1 - e)).round } }, b.samples
    assert_equal [["App#call", "app.rb"], ["Fib.fib", "app/fib.rb"]], b.stacks.keys.first.map { |i| b.frames[i] }
    assert_equal b.samples, b.totals[b.frames.index(["App#call", "app.rb"])]
  end

  def test_a_grown_frame_is_red_a_shrunk_one_blue_the_rest_grey
    assert_equal %w[Fib.fib Slow#shrink], F.attribution.named.map(&:name).sort
    svg = graph.render
    fib = svg[%r{<g class="grew"><title>Fib\.fib \(app/fib\.rb\): [^<]*</title><rect [^>]*fill="#d64541"/>}]
    refute_nil fib, svg
    assert_match(/of puma x2:1&#39;s samples \(\d+\); self time \+0\.\d+ ms per request \(\+/, fib)
    assert_match(%r{<g class="shrank"><title>Slow#shrink \(app/slow\.rb\): [^<]*self time -[^<]*</title><rect [^>]*fill="#3a74c4"/>}, svg)
    assert_match(%r{<g class="same"><title>App#call \(app\.rb\): 100\.0% [^<]*within noise</title><rect x="0\.0" y="0" width="1200\.0"}, svg)
    assert_equal 4, svg.scan("<g ").size
  end

  def test_a_hostile_frame_name_is_escaped
    svg = graph.render
    refute_includes svg, "<script>"
    refute_includes svg, "<b>"
    assert_includes svg, "&lt;script&gt;alert(1)&lt;/script&gt;#x (app/&lt;b&gt;.rb)"
  end

  def test_frames_under_half_a_percent_are_left_out_and_a_decided_one_is_listed
    stacks = F.stacks.fetch(["/fib", 2, F::B])
    tiny = stacks.frames.index(["Slow#shrink", "app/slow.rb"])
    stacks.stacks.each_key { |path| stacks.stacks[path] = 1 if path.last == tiny }
    svg = G.new(F.attribution, stacks).render
    refute_match(/<title>Slow#shrink/, svg)
    assert_match(%r{<p class="note">Not in puma x2:1's graph \(gone, or under 0\.5% of its samples\): -[\d.]+ ms per request in Slow#shrink \(app/slow\.rb\)}, svg)
  end

  def test_the_graph_is_bounded
    wide = stacks_of(Array.new(2000) { |i| [1, [i]] }, Array.new(2000) { |i| ["M#m#{i}", "m.rb"] })
    assert_equal 0, G.new(F.attribution, wide).render.scan("<g ").size, "each under 0.5%"
    deep = stacks_of([[10, (0...500).to_a]], Array.new(500) { |i| ["D#d#{i}", "d.rb"] })
    assert_equal G::MAX_DEPTH, G.new(F.attribution, deep).render.scan("<g ").size
    broad = stacks_of(Array.new(150) { |i| [1, Array.new(5) { |d| i * 5 + d }] }, Array.new(750) { |i| ["B#b#{i}", "b.rb"] })
    assert_equal G::MAX_NODES, G.new(F.attribution, broad).render.scan("<g ").size, "750 frames of 0.67% each"
  end

  def test_the_page_draws_the_decided_pair_s_differential_flame_graph
    html = run_cli("report", F.write_run(File.join(tmpdir, "run")), "--format", "html")[1]
    section = html[%r{<section id="flames">.*?</section>}m]
    refute_nil section
    assert_match(%r{<figure class="flame"><figcaption><code>/fib</code> c=2: puma x2:1 against puma x1:2: 4680 samples}, section)
    assert_match(/<g class="grew"><title>Fib\.fib/, section)
    assert_match(/<g class="shrank"><title>Slow#shrink/, section)
    refute_includes section, "<script>"
    assert_empty run_cli("report", Rackbench::RunFixture.full_run(File.join(tmpdir, "plain")), "--format", "html")[1]
      .scan('id="flames"'), "no profile, no section"
  end

  private

  def stacks_of(stacks, names)
    process = { "samples" => 1, "frames" => [], "stack_frames" => names, "stacks" => stacks }
    Rackbench::Stats::FrameStacks.new("/fib", 2, F::B, [{ "repetition" => 1, "processes" => [process] }])
  end
end
