# frozen_string_literal: true

require "test_helper"
require "json"
require "ripper"

# docs/architecture.md names the code it describes: every file or folder it
# names in backquotes exists, and every constant (`Runner::SampledProcesses`)
# or method (`ServerInstance#workers`, `Load.default`) it names is defined,
# so a rename that leaves the map behind fails here. The map's other claims
# (what a file does, the order of arrows) are checked where the doc says so,
# or said there to be unchecked.
class DocsArchitectureTest < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  DOC = File.join(ROOT, "docs/architecture.md")
  # Named in the doc but not rackbench's code: an environment variable, the
  # test's constant, the example engine the doc writes, the run directory.
  NOT_CODE = %w[RACKBENCH_SERVER ArchitectureTest::RANK lib/rackbench/load/hey.rb rackbench-runs/].freeze

  def names
    File.read(DOC).scan(/`([^`\n]+)`/).flatten.uniq - NOT_CODE
  end

  def test_every_file_and_folder_named_exists
    files = Dir.glob("**/*", base: ROOT)
    paths = names.grep(%r{\A[\w.{}*-]+(/[\w.{}*-]*)*\z}).select { |n| n.include?("/") || n.match?(/\.(rb|md|yml|lua|ru)\z|\AGemfile\z/) }
    assert_operator paths.size, :>, 40, "the doc's paths were read"
    missing = paths.reject do |p|
      pattern = p.delete_suffix("/")
      [pattern, "lib/rackbench/#{pattern}", "**/#{pattern}"].any? do |g|
        File.exist?(File.join(ROOT, g)) || files.any? { |f| File.fnmatch?(g, f, File::FNM_PATHNAME | File::FNM_EXTGLOB) }
      end
    end
    assert_empty missing, "docs/architecture.md names files that do not exist"
  end

  # In a fresh Ruby that has loaded every file of lib/rackbench (the
  # calibration's workload script aside), each constant named resolves
  # (a short name as the end of a longer one: `Sockets` is System::Sockets;
  # Ruby's own, `IO.popen`, as itself).
  def test_every_constant_and_method_named_is_defined
    consts = names.grep(/\A[A-Z]\w*(::[A-Z]\w*)*([#.]\w+[?!]?)?(\(.*\))?\z/) - ["Gemfile"]
    assert_operator consts.size, :>, 40, "the doc's constants were read"
    out = IO.popen([RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-e", RESOLVE, *consts], err: %i[child out], &:read)
    assert_equal [], JSON.parse(out.lines.last.to_s), "docs/architecture.md names code that is not defined\n#{out}"
  end

  # "process_control/ is the only place that spawns, signals and reaps":
  # outside it, no file spawns (Process.spawn, fork, system, exec, Open3,
  # backquotes), signals (Process.kill but for 0, a liveness check) or reaps
  # (Process.wait*, detach); IO.popen runs only the version queries the doc
  # names.
  POPEN = %w[runtime/jruby.rb server/front/nginx.rb server/passenger.rb workload/bundle_check.rb].freeze
  CALLS = %w[spawn wait wait2 waitpid waitall detach fork exec system popen].freeze

  def test_only_process_control_spawns_signals_and_reaps
    lib = File.join(ROOT, "lib/rackbench")
    found = Dir["#{lib}/**/*.rb"].sort.flat_map do |path|
      rel = path.delete_prefix("#{lib}/")
      next [] if rel.start_with?("process_control/")

      process_calls(File.read(path)).map { |line, call| "#{rel}:#{line} #{call}" }
                                    .reject { |hit| POPEN.include?(rel) && hit.end_with?(" IO.popen") }
    end
    assert_empty found, "spawn, signal and reap through ProcessControl (Child, Command), or name the query in docs/architecture.md"
  end

  def test_the_process_call_check_finds_what_it_looks_for
    source = "x = 1\nProcess.spawn(\"a\")\nProcess.kill(\"TERM\", 1)\nProcess.kill(0, 1)\nfork { }\n`ls`\nIO.popen([\"a\"])\n" \
             "Process.clock_gettime(1)\nwarn \"cannot fork\"\ndef exec = 1\nobj.system\n"
    assert_equal [[2, "Process.spawn"], [3, "Process.kill"], [5, "fork"], [6, "backquote"], [7, "IO.popen"]], process_calls(source)
  end

  # [[line, call]] of the process calls in source.
  def process_calls(source)
    toks = Ripper.lex(source).reject { |t| %i[on_sp on_ignored_nl on_nl on_comment].include?(t[1]) }
    toks.each_with_index.filter_map do |((line, _), type, text), i|
      before = i.positive? ? toks[i - 1][2] : nil
      after = toks[i + 1]&.[](2)
      call =
        if type == :on_backtick then "backquote"
        elsif type == :on_const && text == "Open3" then "Open3"
        elsif type == :on_const && %w[Process Kernel IO].include?(text) && after == "."
          name = toks[i + 2]&.[](2)
          "#{text}.#{name}" if CALLS.include?(name) || (name == "kill" && toks[i + 3, 2].map { |t| t[2] } != ["(", "0"])
        elsif type == :on_ident && %w[fork spawn system exec].include?(text) && ![".", "def"].include?(before) then text
        end
      [line, call] if call
    end
  end

  RESOLVE = <<~'RUBY'
    require "json"
    lib = File.join($LOAD_PATH.first, "rackbench")
    Dir["#{lib}/**/*.rb"].reject { |f| f.end_with?("calibration/fib.rb") }.sort.each { |f| require f }
    name_of = Module.instance_method(:name)
    all = []
    walk = lambda do |mod|
      mod.constants(false).each do |c|
        v = mod.const_get(c)
        path = "#{name_of.bind_call(mod)}::#{c}"
        all << [path, v]
        walk.call(v) if v.is_a?(Module) && name_of.bind_call(v) == path
      end
    end
    all << ["Rackbench", Rackbench]
    walk.call(Rackbench)
    missing = ARGV.reject do |t|
      const, sep, meth = t.sub(/\(.*\)\z/, "").partition(/[#.]/)
      hits = all.select { |path, _| [const, "Rackbench::#{const}"].include?(path) || path.end_with?("::#{const}") }
      hits << [const, Object.const_get(const)] if const.match?(/\A[A-Z]\w*\z/) && Object.const_defined?(const)
      hits.any? do |_, obj|
        next true if meth.empty?
        next obj.respond_to?(meth, true) if sep == "."

        obj.is_a?(Module) && (obj.method_defined?(meth) || obj.private_method_defined?(meth))
      end
    end
    puts JSON.generate(missing)
  RUBY
end
