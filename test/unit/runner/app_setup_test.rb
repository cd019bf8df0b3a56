# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "rackbench/runner"
require "rackbench/workload/git_refs"

# Runner::AppSetup: a Rails-shaped commit (bin/rails, config/database.yml)
# gets `bin/rails db:prepare` with the run's RAILS_ENV, said in a note as
# the default and recorded in meta.json; --no-setup-cmd runs nothing; a
# failure is one line naming the ref, the command, its status and output.
# bin/rails here is a stand-in script: no Rails is booted.
class AppSetupTest < Minitest::Test
  Store = Struct.new(:path, :meta_h) do
    def meta = JSON.parse(JSON.generate(meta_h))
    def write_meta(meta) = self.meta_h = meta
  end

  Notes = Struct.new(:lines) do
    def note(text) = lines << text
  end

  def setup
    @root = tmpdir
    File.write(File.join(@root, "config.ru"), "run ->(_) { [200, {}, ['ok']] }\n")
    FileUtils.mkdir_p(File.join(@root, "bin"))
    FileUtils.mkdir_p(File.join(@root, "config"))
    File.write(File.join(@root, "config", "database.yml"), "production:\n  adapter: sqlite3\n")
    @store = Store.new(tmpdir, {})
    @notes = Notes.new([])
    @ref = Rackbench::Workload::GitRefs::Ref.new(name: "main", sha: "a" * 40)
  end

  def rails(script)
    File.write(File.join(@root, "bin", "rails"), "#!/bin/sh\n#{script}\n")
    File.chmod(0o755, File.join(@root, "bin", "rails"))
    Rackbench::Workload::App.new(config_ru: File.join(@root, "config.ru"))
  end

  def call(app, setup_cmd)
    Rackbench::Runner::AppSetup.new(config: { setup_cmd: setup_cmd }, store: @store, listener: @notes)
                               .call(app, File.join(@store.path, "logs", "refs", "main@aaaaaaa"), who: "--ref main (aaaaaaa)", ref: @ref)
  end

  def test_the_default_db_prepare_runs_with_the_runs_rails_env
    call(rails('echo "rails $1 in $RAILS_ENV"'), nil)
    assert_equal "rails db:prepare in production\n", File.read(File.join(@store.path, "logs", "refs", "main@aaaaaaa", "setup.log"))
    assert_match(/\A--ref main \(aaaaaaa\): setup `bin\/rails db:prepare` exited with status 0 in .* s before any boot \(log: logs\/refs\/main@aaaaaaa\/setup\.log\); the default for a Rails app with config\/database\.yml: --setup-cmd CMD runs another command, --no-setup-cmd none\z/,
                 @notes.lines.first)
    assert_equal [["main@aaaaaaa", "bin/rails db:prepare", true, 0]],
                 @store.meta_h["setup_commands"].map { |r| r.values_at("ref", "command", "default", "exit_status") }
  end

  def test_no_setup_cmd_runs_nothing
    call(rails("touch ran; exit 1"), "")
    refute File.exist?(File.join(@root, "ran"))
    assert_empty @notes.lines
    assert_nil @store.meta_h["setup_commands"]
  end

  def test_a_failing_default_is_one_line_with_the_way_out
    e = assert_raises(Rackbench::UsageError) { call(rails("echo 'ActiveRecord::ConnectionNotEstablished'; exit 1"), nil) }
    assert_match(/\A--ref main \(aaaaaaa\): setup `bin\/rails db:prepare` exited with status 1 \(ActiveRecord::ConnectionNotEstablished; log: \S+\), so the app cannot be measured there: fix the app's setup, give --setup-cmd CMD, or --no-setup-cmd to run none\z/,
                 e.message)
    assert_equal [1], @store.meta_h["setup_commands"].map { |r| r["exit_status"] }
  end
end
