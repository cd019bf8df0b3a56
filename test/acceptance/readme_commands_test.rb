# frozen_string_literal: true

require "test_helper"
require "json"
require "open3"
require "fileutils"
require "shellwords"
require_relative "../support/user_shell"

# The README's commands, run as written by a user: `bundle exec rackbench`
# from a fresh temporary working directory, default options, relative paths,
# and the output read as the user reads it (stdout and stderr). A failure
# here is a failure a new user meets first.
class ReadmeCommandsTest < Minitest::Test
  README = File.read(File.expand_path("../../README.md", __dir__))
  # What a user must never see on a terminal: Ruby or Bundler warnings, a
  # stack trace, a failed setup.
  # What bin/setup installs under the checkout (gitignored), copied into the clone.
  INSTALLED = %w[vendor/bundle vendor/jruby apps/rails/vendor].freeze
  NOISE = /^WARN|\.rb:\d+: warning:|^\s+from .*:\d+:in |\bFAILED\b/.freeze
  SECOND = ["--setup", "puma x2:5", "--setup", "unicorn x2", "--endpoint", "/hello", "--endpoint", "/pause/0.05",
            "--concurrency", "1,4,16", "--duration", "2"].freeze

  def setup
    @cwd = tmpdir
    @shell = Rackbench::UserShell.new(@cwd)
  end

  def trials(dir)
    File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
  end

  def assert_whole_records(dir)
    trials(dir).each do |t|
      next unless t["requests"].to_i.positive?

      assert_in_delta t["rps"], t["requests"] / t["duration_s"], t["rps"] * 0.01,
                      "#{t['key']}: requests / duration_s disagrees with rps"
    end
  end

  def test_the_readme_opens_with_the_two_commands
    block = README[/```sh\n(.*?)```/m, 1].lines.map { |l| l.split(" #").first.strip }
    assert_equal ["bin/setup && bundle exec exe/rackbench run", "bin/setup && bundle exec rake test"], block
  end

  # The README's two command lines, as written.
  def readme_lines
    README[/```sh\n(.*?)```/m, 1].lines.map { |l| l.split(" #").first.strip }
  end

  # README line 1 in a fresh clone of HEAD, as written: bin/setup there (it
  # installs what the clone needs: a missing install step, or a tracked file
  # that should be ignored, fails here), then the default benchmark, every
  # installed server of the default plan (Falcon and Pitchfork too; Itsi,
  # Iodine and Agoo are opt-in: --help says so), no --out. Then README line 2
  # in the same clone, after the run, narrowed to one test file (TEST=) to
  # keep CI's time: bin/setup again, then `rake test`'s lint over the clone
  # holding the run's generated files, then that file's tests. Between the
  # two, a second run to a relative --out that .gitignore does not list, and
  # RuboCop on the generated config files alone, which finds offenses: lint
  # reads the files git tracks, never what rackbench wrote (this clone, its
  # run and its lint serve both checks; they were lint_after_run_test.rb's own).
  # rackbench's own gems live in the checkout's vendor/bundle (bin/setup,
  # issue 34), the Rails workload's in apps/rails/vendor, JRuby in
  # vendor/jruby: the clone gets a copy of this checkout's (INSTALLED), as
  # the system gems had served every clone before, so its bin/setup finds
  # them installed instead of compiling them again (minutes; .ci/run's
  # bin/setup installs them from nothing on a fresh machine, and the suite's
  # Rails and JRuby tests then use them).
  def test_the_default_run_measures_every_installed_server
    clone = File.join(@cwd, "clone")
    _out, err, st = capture_with_timeout("git", "clone", "-q", Rackbench::UserShell::ROOT, clone, timeout: 120)
    assert st.success?, err
    INSTALLED.each do |rel|
      from = File.join(Rackbench::UserShell::ROOT, rel)
      next unless File.directory?(from)

      FileUtils.mkdir_p(File.dirname(File.join(clone, rel)))
      FileUtils.cp_r(from, File.dirname(File.join(clone, rel)))
    end
    shell = Rackbench::UserShell.new(clone, clone: true)
    setup_and_run, setup_and_test = readme_lines
    assert_equal "bin/setup && bundle exec exe/rackbench run", setup_and_run

    res = shell.sh(setup_and_run, timeout: 1500)
    assert_equal 0, res.status, "#{res.stdout[-2000..]}\n#{res.stderr}"
    assert_match(/^bin\/setup: ready \(wrk /, res.stdout, "bin/setup finished in the clone")
    servers = shell.sh("bundle exec exe/rackbench servers")
    assert_equal 0, servers.status, servers.stderr
    installed = %w[puma unicorn thin passenger falcon pitchfork].select { |k| servers.stdout.match?(/^#{k}\s+\d/) }
    %w[puma falcon pitchfork].each { |k| assert_includes installed, k, servers.stdout } # bin/setup installs the gems
    res.stdout.sub!(/\A.*^bin\/setup: ready [^\n]*\n/m, "") # the run's own output follows bin/setup's lines
    refute_match NOISE, res.stderr
    refute_match NOISE, res.stdout
    dir = res.stderr[/^Run directory: (.+)$/, 1]
    assert dir.start_with?(File.join(File.realpath(clone), "rackbench-runs") + "/") || dir.start_with?(File.join(clone, "rackbench-runs") + "/"),
           "run directory #{dir} is under ./rackbench-runs"
    measured = trials(dir).map { |t| t["setup"][/\A\w+/] }.uniq.sort
    assert_equal installed.sort, measured, "every installed server measured"
    assert(trials(dir).all? { |t| t["requests"].to_i.positive? }, "every trial served requests")
    assert_whole_records(dir)
    assert File.file?(File.join(dir, "report.html"))
    assert_the_readme_example_is_this_output(res.stdout)
    # Issue 34: GC is taken as a share of the process's CPU per request, so
    # no /hello cell of the default run reads "GC" (it read GC in all six).
    hello = res.stdout[%r{^What limited each cell[^\n]*\n(/hello .*?)(?:\n\n|\z)}m, 1].to_s.lines.drop(2)
    assert_operator hello.size, :>=, 6, "the verdict grid's /hello rows were read:\n#{res.stdout}"
    assert_empty hello.grep(/\sGC(\s|\z)/), "no /hello cell of the default run is GC"

    assert_lint_ignores_what_runs_wrote(clone, shell)
    assert_equal "bin/setup && bundle exec rake test", setup_and_test
    tests = Rackbench::UserShell.new(clone, clone: true, env: { "TEST" => "test/unit/plan/setup_test.rb" }).sh(setup_and_test, timeout: 900)
    assert_equal 0, tests.status, "#{tests.stdout[-3000..]}\n#{tests.stderr}"
    assert_match(/no offenses detected/, tests.stdout, "lint passed in the clone after the run")
    inspected = tests.stdout[/(\d+) files inspected/, 1].to_i
    tracked = IO.popen(%w[git ls-files], chdir: clone, &:readlines).count { |f| f.match?(/\.(rb|ru|gemspec)$|Gemfile$|Rakefile$|^exe\//) }
    assert_operator inspected, :<=, tracked, "only tracked files are inspected"
    assert_match(/^\d+ runs, \d+ assertions, 0 failures, 0 errors, 0 skips$/, tests.stdout)
  end

  # After the default run (into ./rackbench-runs), a run into a relative
  # --out that .gitignore does not list: both leave the servers' generated
  # config files (puma.rb, unicorn.rb) in the clone, and those are not this
  # project's style: RuboCop on them alone finds offenses (so the clean lint
  # that follows shows it never read them).
  def assert_lint_ignores_what_runs_wrote(clone, shell)
    second = shell.sh("bundle exec exe/rackbench run -s 'puma x2:1' -s 'unicorn x2' -e /hello -c 1 -d 0.5 --warmup 0 --out runs/first")
    assert_equal 0, second.status, second.stderr
    generated = Dir.glob(File.join(clone, "{rackbench-runs,runs}/**/*.rb"))
    assert_operator generated.size, :>=, 2, "the runs wrote the servers' config files (puma.rb, unicorn.rb)"
    assert(generated.any? { |f| f.start_with?(File.join(clone, "runs/")) }, "the relative --out wrote its own")
    lint = shell.sh("bundle exec rubocop --format simple #{generated.shelljoin}", timeout: 300)
    text = lint.stdout + lint.stderr
    assert_match(/offenses? detected/, text)
    refute_match(/no offenses detected/, text)
    # Plain `rubocop` finds the files itself; .rubocop.yml excludes the default run directory.
    listed = shell.sh("bundle exec rubocop -L", timeout: 300)
    assert_equal 0, listed.status, listed.stderr
    assert_empty listed.stdout.lines.grep(%r{(\A|/)rackbench-runs/}), "rubocop lists no file of rackbench-runs/"
  end

  # One line of the Answer block of the quick race (Report::RaceText):
  #   "  /hello c=8: thin 12069 req/s fastest: falcon x2 7879 slower by 35% (95% CI 22-46%); ... too"
  #   "  /pause/0.01 c=8: falcon x2 735 req/s leads an equivalence group: puma x2:5 723 equivalent within ..."
  #   "  /fibonacci/25 c=8: undecided after 4 rounds: puma x2:5 212 req/s leads; pitchfork x2 167 undecided (...)"
  ANSWER_LINE = %r{\A  (/\S*) c=(\d+): (.+)\z}.freeze
  RACE_WORDS = /\A(?:undecided after \d+ rounds?: )?\S.* [\d.k]+( ~| \?)* req\/s( ~| \?)* (fastest: |leads an equivalence group: |leads; )/.freeze

  # The README's example of the first screen has the shape of a real default
  # run's first screen: the same heading, the same endpoints in the same
  # order at the same level, each line a race's (a winner, an equivalence
  # group, or undecided after N rounds), and the first table's header over
  # the same levels.
  def assert_the_readme_example_is_this_output(stdout)
    example = README[/^```text\n(.*?)```/m, 1].lines.map(&:chomp)
    real = stdout.lines.map(&:chomp)
    assert_equal real.first, example.first, "the Answer heading"
    answers = ->(ls) { ls.drop(1).take_while { |l| l.match?(ANSWER_LINE) && !l.start_with?("  ~ =") } }
    ex = answers.call(example)
    got = answers.call(real)
    refute_empty got, stdout
    assert_equal got.map { |l| l[ANSWER_LINE, 1] + l[ANSWER_LINE, 2] }, ex.map { |l| l[ANSWER_LINE, 1] + l[ANSWER_LINE, 2] },
                 "the README's example names the endpoints and level a default run answers for"
    (got + ex).each { |l| assert_match(RACE_WORDS, l[ANSWER_LINE, 3], "a race's answer line: #{l}") }
    header = ->(ls) { ls.find { |l| l.start_with?("/hello ") }.split }
    assert_equal header.call(real), header.call(example), "the first table's levels"
  end

  # README "Run": every line that runs on the built-in app (no --app, no
  # --url) names endpoints that app serves; `tune ... -e /` was refused as
  # written ("the built-in arena app does not serve /", issue 46, item 9.3).
  def test_the_run_block_names_endpoints_the_built_in_app_serves
    require "rackbench/workload/arena"
    block = README[/^## Run\n+```sh\n(.*?)```/m, 1] or flunk "README has a Run block"
    lines = block.lines.map { |l| l.split(/\s#\s/).first.strip }.grep(/\Arackbench (run|capacity|tune)\b/)
    assert_operator lines.size, :>=, 8, block
    built_in = lines.reject { |l| l.match?(/--app|--url|\.\.\./) }
    assert(built_in.any? { |l| l.start_with?("rackbench tune") }, "the tune line runs on the built-in app")
    built_in.each do |line|
      argv = Shellwords.split(line)
      endpoints = argv.each_cons(2).filter_map { |flag, value| value if %w[-e --endpoint].include?(flag) }
      endpoints.each do |path|
        assert Rackbench::Workload::Arena.serves?(path), "README: #{line}\n  the built-in app does not serve #{path}"
      end
    end
  end

  # README "Run": the explicit plan with a relative --out, the same plan from
  # a plan file, then report and compare of the two, all relative.
  def test_relative_out_plan_file_report_and_compare
    first = @shell.run("run", *SECOND, "--out", "runs/first")
    assert_equal 0, first.status, first.stderr
    refute_match NOISE, first.stderr
    meta = JSON.parse(File.read(File.join(@cwd, "runs/first/meta.json")))
    assert_equal File.join(@cwd, "runs/first"), meta["run_dir"]
    assert_equal File.join(@cwd, "runs/first"), meta.dig("config", "out"), "meta.json stores absolute paths"
    assert_equal 12, trials(File.join(@cwd, "runs/first")).size
    assert_whole_records(File.join(@cwd, "runs/first"))

    FileUtils.mkdir_p(File.join(@cwd, "plans"))
    File.write(File.join(@cwd, "plans/plan.rb"), <<~RUBY)
      setup "puma x2:5"
      setup "unicorn x2"
      endpoint "/hello", "/pause/0.05"
      concurrency 1, 4, 16
      duration 2
      warmup 1
      repeat 1
      out "../runs/second"
    RUBY
    second = @shell.run("run", "plans/plan.rb")
    assert_equal 0, second.status, second.stderr
    assert_equal 12, trials(File.join(@cwd, "runs/second")).size, "the plan's out is relative to the plan file"

    report = @shell.run("report", "runs/first")
    assert_equal 0, report.status, report.stderr
    assert_match(/puma x2:5/, report.stdout)
    compare = @shell.run("compare", "runs/first", "runs/second")
    assert_equal 0, compare.status, compare.stderr
    assert_match(/unicorn x2/, compare.stdout)
    [report, compare].each { |r| refute_match NOISE, r.stderr }
  end

  # An interrupted run, resumed with the command it printed, from another
  # directory, and with a relative path from a third.
  def test_an_interrupted_run_resumes_from_the_printed_hint
    @shell.start("run", "-s", "puma x1:4", "-s", "unicorn x2", "-e", "/pause/0.05", "-c", "2,4", "-d", "1", "--out", "runs/int")
    @shell.wait_for_stderr(/\[1\/4\]/)
    @shell.signal("INT")
    res = @shell.wait(timeout: 60)
    assert_equal 130, res.status, res.stderr
    hint = res.stderr[/rackbench run --resume (\S+)\)/, 1]
    assert hint, "the resume hint is printed: #{res.stderr}"
    kept = trials(File.join(@cwd, "runs/int")).size
    assert_operator kept, :>=, 1

    elsewhere = Rackbench::UserShell.new(tmpdir)
    resumed = elsewhere.run("run", "--resume", hint)
    assert_equal 0, resumed.status, resumed.stderr
    refute_match NOISE, resumed.stderr
    assert_equal 4, trials(File.join(@cwd, "runs/int")).map { |t| t["key"] }.uniq.size

    again = Rackbench::UserShell.new(File.join(@cwd, "runs")).run("run", "--resume", "int")
    assert_equal 0, again.status, again.stderr
    assert_equal 4, trials(File.join(@cwd, "runs/int")).size, "a finished run resumed again measures nothing"
  end

  def test_doctor_and_help_as_written
    help = @shell.run("run", "--help")
    assert_equal 0, help.status
    assert_match(/--resume DIR/, help.stdout)
    assert_empty help.stderr
    # After bin/setup wrk is on PATH, and only a missing wrk (or an
    # unreachable --load-host) is a FAIL: doctor exits 0, whatever it warns of.
    doctor = @shell.run("doctor")
    assert_equal 0, doctor.status, doctor.stdout + doctor.stderr
    assert_match(/^ok    wrk\s+version 4\.\d/, doctor.stdout)
    assert_empty doctor.stdout.lines.grep(/^FAIL/)
    refute_match(/^WARN|warning:/, doctor.stderr)
  end

  # The same command where wrk is missing: one FAIL line saying what to do, exit 1.
  def test_doctor_without_wrk_fails_and_says_what_to_do
    doctor = Rackbench::UserShell.new(@cwd, env: { "PATH" => File.join(@cwd, "empty-bin") }).run("doctor", timeout: 60)
    assert_equal 1, doctor.status, doctor.stdout + doctor.stderr
    assert_equal ["FAIL  wrk           not found on PATH: run bin/setup (or apt-get install wrk)\n"], doctor.stdout.lines.grep(/^FAIL/)
    refute_match(/^\s+from .*:\d+:in /, doctor.stderr)
  end
end
