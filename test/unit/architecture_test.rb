# frozen_string_literal: true

require "test_helper"
require "tsort"
require "ripper"
require "support/constant_refs"

# The house as docs/architecture.md draws it, checked on lib/rackbench:
#
# - The arrows run one way. Read from every require_relative line, each
#   folder and loose file is a node with a rank in RANK (a node without one
#   fails); no node requires one of a smaller rank, the nodes form no cycle,
#   and system/ (the /proc and socket readers) requires nothing outside
#   itself. A top-level file beside a folder of its name (server.rb,
#   load.rb) counts as that folder; the other top-level files (doctor.rb,
#   error.rb, clock.rb ...) are nodes of their own.
# - Every constant a file uses is reached by its require_relative lines
#   (test/support/constant_refs.rb).
# - No server's, proxy's or engine's name is a literal outside its plug-in.
#
# Each check also has a test that it fails on what it looks for.
class ArchitectureTest < Minitest::Test
  ROOT = File.expand_path("../../lib/rackbench", __dir__)
  # The ranks, from cli (0) down: an arrow may only point to a node of an
  # equal or larger rank (siblings may require each other, one way). The
  # loose files that require none of rackbench's folders, only each other,
  # are the leaves, all at the bottom rank (9), below system/ (8), which
  # still may not require them.
  LEAVES = %w[clock deadline error finding periodic ports redact run_file suggest test_seam tls units version environment].freeze
  RANK = { "cli" => 0, "(doctor.rb)" => 1, "search" => 1, "suites" => 2, "runner" => 2, "plan" => 3, "report" => 3,
           "server" => 4, "sampling" => 5, "stats" => 5, "load" => 6, "store" => 6, "workload" => 6, "calibration" => 6,
           "runtime" => 6, "process_control" => 7, "system" => 8 }.merge(LEAVES.to_h { |f| ["(#{f}.rb)", 9] }).freeze

  # A path under lib/rackbench to its node.
  def self.node(rel)
    return rel.split("/").first if rel.include?("/")

    base = File.basename(rel, ".rb")
    Dir.exist?(File.join(ROOT, base)) ? base : "(#{base}.rb)"
  end

  # [[from file, to file]] for every require_relative inside lib/rackbench.
  def self.requires
    Dir["#{ROOT}/**/*.rb"].flat_map do |path|
      File.read(path).scan(/^\s*require_relative\s+"([^"]+)"/).flatten.filter_map do |target|
        to = File.expand_path("#{target}.rb", File.dirname(path))
        [path.delete_prefix("#{ROOT}/"), to.delete_prefix("#{ROOT}/")] if to.start_with?("#{ROOT}/")
      end
    end
  end

  # The problems in edges ([[from file, to file]]): cycles between nodes,
  # arrows against RANK, and system/ requiring outside itself.
  def self.problems(edges)
    graph = Hash.new { |h, k| h[k] = {} }
    out = []
    edges.each do |from, to|
      a = node(from)
      b = node(to)
      graph[b]
      next if a == b

      (graph[a][b] ||= []) << "#{from} -> #{to}"
      out << "system/ requires outside itself: #{from} -> #{to}" if a == "system"
      out << "arrow against the order (#{a} is above #{b}'s users): #{from} -> #{to}" if RANK[a] && RANK[b] && RANK[b] < RANK[a]
      [a, b].each { |n| out << "#{n} has no rank in ArchitectureTest::RANK: place it (docs/architecture.md)" unless RANK[n] }
    end
    sorter = Object.new
    sorter.define_singleton_method(:each_node) { |&blk| graph.each_key(&blk) }
    sorter.define_singleton_method(:each_child) { |n, &blk| graph[n].each_key(&blk) }
    TSort.strongly_connected_components(sorter.method(:each_node), sorter.method(:each_child)).each do |scc|
      next if scc.size < 2

      arrows = scc.flat_map { |a| scc.flat_map { |b| Array(graph[a][b]).first(1) } }
      out << "cycle between #{scc.sort.join(', ')}: #{arrows.join('; ')}"
    end
    out.uniq
  end

  def test_the_arrows_run_one_way
    edges = self.class.requires
    assert_operator edges.size, :>, 300, "the require graph was read"
    assert_empty self.class.problems(edges), "docs/architecture.md: the graph of folders"
  end

  # The check fails on the back-arrows the house had (issue 27's review).
  def test_it_fails_on_the_back_arrows_there_were
    old = [["process_control/server_instance.rb", "server/error_line.rb"], ["server/front/nginx.rb", "process_control/child.rb"],
           ["report/html/capacity.rb", "search/slo.rb"], ["search/capacity.rb", "report/decision_text.rb"],
           ["process_control/child.rb", "sampling/process_tree.rb"], ["system/sockets.rb", "clock.rb"]]
    found = self.class.problems(old)
    assert(found.any? { |p| p.start_with?("cycle between process_control, server: ") }, found.inspect)
    assert(found.any? { |p| p.include?("report/html/capacity.rb -> search/slo.rb") && p.start_with?("arrow against") }, found.inspect)
    assert(found.any? { |p| p.include?("process_control/child.rb -> sampling/process_tree.rb") }, found.inspect)
    assert_includes found, "system/ requires outside itself: system/sockets.rb -> clock.rb"
  end

  # A constant used is a constant required (support/constant_refs.rb): a
  # file that loads only because another file happened to load its
  # dependency first breaks when it is required alone, or reordered.
  def test_every_constant_used_is_required
    assert_empty ConstantRefs.unrequired(ROOT), "add the require_relative (or move the constant to the file that uses it)"
  end

  def test_the_constant_check_fails_on_a_file_that_requires_nothing
    sources = { "#{ROOT}/a/thing.rb" => "module Rackbench\n  module A\n    THING = 1\n  end\nend\n",
                "#{ROOT}/b/user.rb" => "module Rackbench\n  module B\n    def self.x = A::THING\n  end\nend\n",
                "#{ROOT}/b/fine.rb" => "require_relative \"../a/thing\"\nmodule Rackbench\n  module B\n    Y = A::THING\n  end\nend\n" }
    assert_equal ["b/user.rb:3 A::THING (Rackbench::A::THING, defined in a/thing.rb)"], ConstantRefs.unrequired(ROOT, sources)
  end

  # Issue 36's two arrows that passed the old, partial ranking, and a node
  # nobody ranked.
  def test_it_fails_on_arrows_between_folders_the_old_ranking_left_out
    found = self.class.problems([["stats/decision.rb", "plan/config.rb"], ["process_control/child.rb", "runtime/flags.rb"],
                                 ["cli/run.rb", "newfolder/thing.rb"]])
    assert(found.any? { |p| p.start_with?("arrow against the order (stats is above plan's users)") }, found.inspect)
    assert(found.any? { |p| p.start_with?("arrow against the order (process_control is above runtime's users)") }, found.inspect)
    assert(found.any? { |p| p.start_with?("newfolder has no rank") }, found.inspect)
  end

  # Plug-ins own every fact about themselves: outside a server's, a proxy's
  # or an engine's own files (server/, load/, their registries), the suites
  # and the built-in apps' descriptions (workload/), no string or symbol in
  # lib/ is one of their names ("puma", "nginx", "wrk"), nor a label's
  # "behind nginx". Read with Ripper, so comments and prose (a help text's
  # example "puma x2:5", a message naming wrk) are not literals of a name.
  PLUGIN_HOMES = %r{\A(server|load|suites|workload)(/|\.rb\z)}
  NOT_A_NAME = { ["process_control/log_cap.rb", "ab"] => "File.open's append mode" }.freeze

  def self.plugin_names
    require "rackbench"
    (Rackbench::Server.keys + Rackbench::Server::Front.names + Rackbench::Load.names +
     Rackbench::Load.programs.keys).uniq
  end

  # [[file, line, literal]] naming a plug-in in source (path: under lib/rackbench).
  def self.name_literals(rel, source, names)
    Ripper.lex(source).each_cons(2).filter_map do |(_, before, _), (pos, type, text)|
      next unless type == :on_tstring_content || (type == :on_ident && before == :on_symbeg)

      hit = names.find { |n| text == n || text.match?(/\A\s*behind #{Regexp.escape(n)}\z/) }
      [rel, pos.first, text] if hit && !NOT_A_NAME.key?([rel, text])
    end
  end

  def test_no_plugin_name_outside_its_plug_in
    names = self.class.plugin_names
    assert_includes names, "puma"
    assert_includes names, "wrk-open"
    found = Dir["#{ROOT}/**/*.rb"].flat_map do |path|
      rel = path.delete_prefix("#{ROOT}/")
      next [] if rel.match?(PLUGIN_HOMES)

      self.class.name_literals(rel, File.read(path), names)
    end
    assert_empty found.map { |f| f.join(":") }, "a plug-in's fact outside its plug-in: give it to the adapter or engine (docs/architecture.md)"
  end

  def test_the_name_check_finds_what_it_looks_for
    names = %w[puma nginx wrk]
    source = <<~RUBY
      # puma in a comment is prose
      ladders = { "puma" => [1, 2] }
      engine = Load.engine('wrk')
      label.include?(" behind nginx")
      kind = :wrk
      warn "set up puma x2:5 first"
    RUBY
    found = self.class.name_literals("cli/x.rb", source, names).map { |_, line, text| [line, text] }
    assert_equal [[2, "puma"], [3, "wrk"], [4, " behind nginx"], [5, "wrk"]], found
  end
end
