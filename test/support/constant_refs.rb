# frozen_string_literal: true

require "ripper"

# Which constants each file of lib/rackbench defines and uses, read with
# Ripper (comments and strings are not code), and the uses that are not
# required: a file that names Stats::Summary must reach stats/summary.rb by
# its require_relative lines (directly or through the files it requires),
# or be a part its owner requires (verdict_cell.rb, required by verdict.rb,
# may use Verdict::KINDS). Lexical lookup as Ruby does it: a name is tried
# in each enclosing module, innermost first. Limits: names built at run time
# (const_get) and constants of Ruby or of gems are not checked.
module ConstantRefs
  # Definitions ([names]) and references ([[nesting, names, line]]) of one source.
  class Scan
    attr_reader :defined, :refs

    def initialize(source)
      @defined = []
      @refs = []
      walk(Ripper.sexp(source), [])
    end

    private

    def path_of(node)
      case node&.first
      when :const_ref, :var_ref, :var_field then node[1].is_a?(Array) && node[1].first == :@const ? [node[1][1]] : nil
      when :const_path_ref, :const_path_field
        left = path_of(node[1])
        left && node[2].first == :@const ? left + [node[2][1]] : nil
      when :top_const_ref, :top_const_field then [node[1][1]]
      end
    end

    def walk(node, nesting)
      return unless node.is_a?(Array)
      return node.each { |child| walk(child, nesting) } unless node.first.is_a?(Symbol)

      case node.first
      when :module, :class then return if scope(node, nesting)
      when :assign, :opassign
        name = path_of(node[1])
        @defined << nesting + name if name && node[1].first != :var_ref
      when :var_ref, :const_path_ref, :top_const_ref
        parts = path_of(node)
        return @refs << [nesting, parts, line(node)] if parts
      end
      node.each { |child| walk(child, nesting) }
    end

    def scope(node, nesting)
      name = path_of(node[1]) or return false
      @defined << nesting + name
      walk(node[2], nesting) if node.first == :class # the superclass, outside the class
      walk(node.first == :class ? node[3] : node[2], nesting + name)
      true
    end

    def line(node)
      return node[2][0] if node.first.is_a?(Symbol) && node.first.to_s.start_with?("@") && node[2].is_a?(Array)

      node.each { |c| (l = c.is_a?(Array) && line(c)) && (return l) }
      nil
    end
  end

  module_function

  # ["file:line Name (Full::Name, defined in file)"] under root, for the
  # given sources ({absolute path => source}; default: every file).
  def unrequired(root, sources = Dir["#{root}/**/*.rb"].to_h { |f| [f, File.read(f)] })
    scans = sources.transform_values { |src| Scan.new(src) }
    defs = Hash.new { |h, k| h[k] = [] }
    scans.each { |f, s| s.defined.each { |n| defs[n.join("::")] << f } }
    reqs = sources.to_h do |f, src|
      [f, src.scan(/^\s*require_relative\s+"([^"#]+)"/).flatten.map { |t| File.expand_path("#{t}.rb", File.dirname(f)) }]
    end
    reach = Hash.new { |h, f| h[f] = closure(f, reqs) }
    scans.flat_map do |f, s|
      s.refs.filter_map do |nesting, parts, line|
        full = nesting.size.downto(0).map { |i| (nesting.first(i) + parts).join("::") }.find { |c| defs.key?(c) }
        next if full.nil? || defs[full].include?(f) || defs[full].any? { |d| reach[f][d] || reqs.fetch(d, []).include?(f) }

        "#{f.delete_prefix("#{root}/")}:#{line} #{parts.join('::')} (#{full}, defined in #{defs[full].first.delete_prefix("#{root}/")})"
      end
    end.uniq
  end

  def closure(file, reqs)
    seen = {}
    stack = [file]
    until stack.empty?
      x = stack.pop
      next if seen[x]

      seen[x] = true
      stack.concat(reqs.fetch(x, []))
    end
    seen
  end
end
