# frozen_string_literal: true

require "test_helper"
require_relative "../support/user_shell"

# The README's two commands compose: a run made inside a clone (the default
# run directory, and a relative --out that .gitignore does not list), then
# the test command's first step, lint, in that clone. Lint reads the files
# git tracks, never the config files rackbench generated for the servers.
class LintAfterRunTest < Minitest::Test
  def test_lint_in_a_clone_ignores_what_a_run_wrote_there
    clone = File.join(tmpdir, "clone")
    _out, err, st = capture_with_timeout("git", "clone", "-q", Rackbench::UserShell::ROOT, clone, timeout: 120)
    assert st.success?, err
    shell = Rackbench::UserShell.new(clone)
    [[], ["--out", "runs/first"]].each do |out|
      res = shell.run("run", "-s", "puma x2:1", "-s", "unicorn x2", "-e", "/hello", "-c", "1", "-d", "0.5", "--warmup", "0", *out)
      assert_equal 0, res.status, res.stderr
    end
    generated = Dir.glob(File.join(clone, "{rackbench-runs,runs}/**/*.rb"))
    assert_operator generated.size, :>=, 2, "the runs wrote the servers' config files (puma.rb, unicorn.rb)"

    lint = lambda do |*args|
      out, err, st = capture_with_timeout(shell.env, RbConfig.ruby, Gem.bin_path("bundler", "bundle"), "exec", *args, chdir: clone, timeout: 300)
      [out + err, st]
    end
    # The generated files are not this project's style: RuboCop on them alone finds offenses ...
    text, = lint.call("rubocop", "--format", "simple", *generated)
    assert_match(/offenses? detected/, text)
    refute_match(/no offenses detected/, text)
    # ... and `rake lint` in the clone never reads them.
    text, st = lint.call("rake", "lint")
    assert st.success?, text
    assert_match(/no offenses detected/, text)
    inspected = text[/(\d+) files inspected/, 1].to_i
    tracked = IO.popen(%w[git ls-files], chdir: clone, &:readlines).count { |f| f.match?(/\.(rb|ru|gemspec)$|Gemfile$|Rakefile$|^exe\//) }
    assert_operator inspected, :<=, tracked, "only tracked files are inspected"
    # Plain `rubocop` finds the files itself; .rubocop.yml excludes the default run directory.
    text, st = lint.call("rubocop", "-L")
    assert st.success?, text
    assert_empty text.lines.grep(%r{(\A|/)rackbench-runs/}), "rubocop lists no file of rackbench-runs/"
  end
end
