# frozen_string_literal: true

require "test_helper"
require "rackbench/server"
require "rackbench/plan/setup"

# Puma's newer knobs as setup words (Server::PumaKnobs), and server words in
# general: what Setup reads, what the config says, what an older Puma refuses.
class PumaKnobsTest < Minitest::Test
  Setup = Rackbench::Setup
  Puma = Rackbench::Server::Puma

  # An app whose Gemfile.lock holds these versions.
  LockedApp = Struct.new(:versions) do
    def bundled? = true
    def locked_version(gem) = versions[gem]
    def gemfile = "/app/Gemfile"
  end

  def files_text(label, version: "8.0.2")
    Puma.new(app: LockedApp.new({ "puma" => version })).files(Setup.parse(label), port: 3000, dir: "/d").fetch("/d/puma.rb")
  end

  def test_words_become_options_and_counts
    fibers = Setup.parse("puma x2:5 fibers")
    assert_equal [2, 5, { "fibers" => true }], [fibers.workers, fibers.threads, fibers.options]
    assert_equal({ "io" => 4 }, Setup.parse("puma x2:5 io:4").options)
    auto = Setup.parse("puma auto:3")
    assert_equal [Rackbench::Server::PumaKnobs.auto_workers, 3, { "auto" => true }], [auto.workers, auto.threads, auto.options]
    assert_equal 5, Setup.parse("puma auto").threads, "Puma's default threads"
    assert_equal({}, Setup.parse("puma x2:5").options)
    assert_equal({ "fibers" => true }, Setup.parse("itsi x2 fibers").options)
  end

  def test_a_word_of_no_server_names_the_servers_own
    e = assert_raises(Rackbench::UsageError) { Setup.parse("puma x2:5 fiberz") }
    assert_match(/cannot read "fiberz"; .*; puma also takes fibers, io:N, auto\[:T\]\z/, e.message)
    e = assert_raises(Rackbench::UsageError) { Setup.parse("unicorn x2 fibers") }
    assert_match(/cannot read "fibers"; write "SERVER/, e.message)
    refute_match(/also takes/, e.message, "unicorn has no words of its own")
    assert_raises(Rackbench::UsageError) { Setup.parse("puma x2:5 io:0") }
    assert_raises(Rackbench::UsageError) { Setup.parse("puma auto:0") }
    e = assert_raises(Rackbench::UsageError) { Setup.parse("itsi x2:3 fibers") }
    assert_match(/one scheduler thread per process; write "itsi x2 fibers"/, e.message)
  end

  # Each knob is a line of rackbench's config file and of a deployment's.
  def test_config_lines
    assert_match(/^fiber_per_request /, files_text("puma x2:5 fibers"))
    assert_match(/^max_io_threads 4 /, files_text("puma x2:5 io:4"))
    auto = files_text("puma auto:5")
    assert_match(/^workers :auto /, auto)
    args = Puma.new.argv(Setup.parse("puma auto:5"), app: "/a/config.ru", port: 1, dir: "/d")
    refute_includes args, "-w", "the file's workers :auto decides, not the command line"
    deploy = Puma.deploy_files(Setup.parse("puma auto:5 io:2"), "# c").fetch("config/puma.rb")
    assert_match(/^workers :auto /, deploy)
    refute_match(/^workers \d/, deploy)
    assert_match(/^max_io_threads 2 /, deploy)
    refute_match(/fiber_per_request|max_io_threads|workers :auto/, files_text("puma x2:5"))
  end

  def test_auto_is_a_cluster_even_of_one
    setup = Setup.parse("puma auto:5").tap { |s| s.workers = 1 }
    refute Puma.new.runs_one_process?(setup), "workers :auto forks even one worker"
    assert_equal 1, Puma.new.expected_workers(setup)
  end

  # A Puma without the knob refuses it, naming the version that has it.
  def test_an_older_puma_refuses_the_word_naming_the_version
    { "puma x2:5 fibers" => ["6.6.1", "7.0"], "puma x2:5 io:4" => ["7.2.0", "8.0"], "puma auto:5" => ["7.1.0", "7.2"] }.each do |label, (old, since)|
      line = Puma.new(app: LockedApp.new({ "puma" => old, "concurrent-ruby" => "1.3.8" })).unsupported(Setup.parse(label))
      assert_match(/needs Puma >= #{Regexp.escape(since)}, but the app's bundle has Puma #{Regexp.escape(old)}; /, line)
      assert_nil Puma.new(app: LockedApp.new({ "puma" => since, "concurrent-ruby" => "1.3.8" })).unsupported(Setup.parse(label))
    end
    line = Puma.new(app: LockedApp.new({ "puma" => "8.0.2" })).unsupported(Setup.parse("puma auto:5"))
    assert_match(/workers :auto needs the concurrent-ruby gem/, line)
    line = Puma.new.unsupported(Setup.parse("puma auto:5"), cpus: :pinned)
    assert_match(/--cpus/, line)
    assert_nil Puma.new.unsupported(Setup.parse("puma x2:5"), cpus: :pinned)
  end

  # The whole command: one line, exit 2, before any boot or run directory.
  def test_run_refuses_before_booting
    app = tmpdir
    File.write(File.join(app, "config.ru"), "run ->(_) { [200, {}, []] }\n")
    File.write(File.join(app, "Gemfile"), %(gem "puma"\n))
    File.write(File.join(app, "Gemfile.lock"), "GEM\n  specs:\n    puma (6.4.2)\n")
    out = File.join(tmpdir, "run")
    status, stdout, err = run_cli("run", "--app", app, "-s", "puma x2:5 fibers", "-e", "/", "-c", "1", "-o", out)
    assert_equal 2, status
    assert_equal "", stdout
    assert_equal 1, err.lines.size, err
    assert_match(/fibers \(Puma's fiber_per_request\) needs Puma >= 7\.0, but the app's bundle has Puma 6\.4\.2/, err)
    refute File.exist?(out), "no run directory"
  end
end
