# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/setup"
require "rackbench/runtime/flags"
require "rackbench/runtime/check"

# Runtime::Flags: what reaches a server's processes for "on yjit", and
# Runtime::Check: what each process says it ran with (real Ruby processes).
class RuntimeFlagsTest < Minitest::Test
  Flags = Rackbench::Runtime::Flags

  def test_yjit_goes_in_through_rubyopt_with_the_probe
    env = Flags.env(Rackbench::Setup.parse("puma x2:5 on yjit"), dir: "/run/logs/puma", rubyopt: "-rbundler/setup")
    assert_equal "-rbundler/setup -r#{Flags::PROBE} --yjit", env["RUBYOPT"]
    assert env.key?("RUBY_YJIT_ENABLE"), "RUBY_YJIT_ENABLE is unset explicitly"
    assert_nil env["RUBY_YJIT_ENABLE"]
    assert_equal "/run/logs/puma/runtime.jsonl", env[Flags::FILE_VAR]
  end

  def test_without_the_word_an_inherited_yjit_switch_is_dropped
    env = Flags.env(Rackbench::Setup.parse("unicorn x2"), dir: "/d", rubyopt: "-W0 --yjit --yjit-exec-mem-size=8 --enable=yjit")
    assert_equal "-W0 -r#{Flags::PROBE}", env["RUBYOPT"]
  end

  def test_a_clean_app_environment_gets_only_the_probe
    env = Flags.env(Rackbench::Setup.parse("puma x1:2"), dir: "/d", rubyopt: nil)
    assert_equal "-r#{Flags::PROBE}", env["RUBYOPT"]
  end

  def test_jruby_gets_nothing
    assert_empty Flags.env(Rackbench::Setup.parse("puma x1:16 on jruby"), dir: "/d", rubyopt: "-W0")
  end

  # A parent that forks two children, run with the flags' environment: every
  # process writes its own line, and Check reads YJIT as each one saw it.
  def forked_family(label)
    dir = tmpdir
    env = Flags.env(Rackbench::Setup.parse(label), dir: dir, rubyopt: nil).merge("RUBY_YJIT_ENABLE" => nil)
    script = "kids = 2.times.map { fork { sleep 0.2 } }; puts kids.join(' '); $stdout.flush; Process.waitall"
    out = IO.popen(env, [RbConfig.ruby, "-e", script], &:read)
    [Rackbench::Runtime::Check.new(Rackbench::Setup.parse(label), dir: dir), out.split.map(&:to_i)]
  end

  def test_check_confirms_yjit_in_every_forked_worker
    check, kids = forked_family("puma x2:5 on yjit")
    state = check.verify!(-> { kids })
    assert_equal 2, state["processes"]
    assert_equal 2, state["on"], state.inspect
    assert_equal 0, state["off"]
  end

  def test_check_reads_yjit_off_without_the_word
    check, kids = forked_family("puma x2:5")
    state = check.verify!(-> { kids })
    assert_equal [2, 0], [state["off"], state["on"]], state.inspect
    assert_nil check.note(state)
  end

  def test_a_flag_that_did_not_take_fails_the_setup
    dir = tmpdir
    setup = Rackbench::Setup.parse("unicorn x2 on yjit")
    File.write(Flags.file(dir), %({"pid":101,"ppid":1,"yjit":false,"at":"fork"}\n{"pid":102,"ppid":1,"yjit":true,"at":"fork"}\n))
    error = assert_raises(Rackbench::SetupFailed) { Rackbench::Runtime::Check.new(setup, dir: dir).verify!(-> { [101, 102] }) }
    assert_match(/unicorn x2 on yjit: "on yjit" did not take: YJIT is off in 1 of 2 server process\(es\) \(pid 101\)/, error.message)
  end

  def test_a_worker_that_never_loaded_the_probe_cannot_confirm_yjit
    dir = tmpdir
    setup = Rackbench::Setup.parse("puma x2:2 on yjit")
    File.write(Flags.file(dir), %({"pid":101,"ppid":1,"yjit":true,"at":"fork"}\n))
    check = Rackbench::Runtime::Check.new(setup, dir: dir)
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    error = assert_raises(Rackbench::SetupFailed) { check.verify!(-> { [101, 103] }) }
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :>=, Rackbench::Runtime::Check::WAIT - 0.1
    assert_match(/could not be confirmed: 1 of 2 .*\(pid 103\) never loaded rackbench's probe/, error.message)
  end

  def test_yjit_turned_on_by_the_app_is_stored_and_noted
    dir = tmpdir
    File.write(Flags.file(dir), %({"pid":101,"ppid":1,"yjit":true,"at":"fork"}\n))
    check = Rackbench::Runtime::Check.new(Rackbench::Setup.parse("puma x2:2"), dir: dir)
    state = check.verify!(-> { [101] })
    assert_equal 1, state["on"]
    assert_match(/YJIT was on in 1 of 1 .* does not say "on yjit"/, check.note(state))
  end
end
