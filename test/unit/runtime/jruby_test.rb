# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "rackbench/plan/setup"
require "rackbench/runtime/jruby"
require "rackbench/server"

class JrubySetupTest < Minitest::Test
  def parse(text)
    Rackbench::Setup.parse(text)
  end

  def refused(text)
    assert_raises(Rackbench::UsageError) { parse(text) }.message
  end

  def test_puma_in_one_process_on_jruby_with_an_optional_heap_limit
    s = parse("puma x1:16 on jruby")
    assert_equal ["puma", 1, 16, "jruby", nil], [s.server, s.workers, s.threads, s.runtime, s.heap]
    h = parse("puma x1:16 on jruby -Xmx512M")
    assert_equal "512m", h.heap
    assert_equal "puma x1:16 on jruby -Xmx512M", h.label
    assert_equal "1g", parse("puma -Xmx1g x1:8 on jruby").heap
  end

  def test_what_jruby_cannot_run_is_refused_with_the_reason
    assert_match(/cluster mode forks workers, and JRuby cannot fork; write "puma x1:THREADS on jruby"/, refused("puma x2:5 on jruby"))
    assert_match(/unicorn does not run on JRuby here .*"puma x1:16 on jruby"/, refused("unicorn on jruby"))
    assert_match(/passenger does not run on JRuby/, refused("passenger on jruby"))
    assert_match(/it needs "on jruby"/, refused("puma x1:16 -Xmx512m"))
    assert_match(/write the heap limit as -Xmx512m/, refused("puma x1:16 on jruby -Xmx"))
    assert_match(/unknown runtime "jrubyy"/, refused("puma on jrubyy"))
  end

  def test_the_jruby_adapter_runs_the_jvm_through_the_launcher_with_its_own_gems
    runtime = Rackbench::Runtime::Jruby.new(home: "/opt/jr", gem_home: "/opt/gems")
    adapter = Rackbench::Server::PumaJruby.new(runtime: runtime)
    argv = adapter.argv(parse("puma x1:16 on jruby -Xmx256m"), app: "/app/config.ru", port: 9000, dir: "/tmp/d")
    assert_equal ["/opt/jr/bin/jruby", "-J-Xmx256m"], argv.first(2)
    assert_includes argv, "16:16"
    refute_includes argv, "-w"
    env = adapter.env(parse("puma x1:16 on jruby"))
    assert_equal ["/opt/gems", "/opt/gems", nil, nil], env.values_at("GEM_HOME", "GEM_PATH", "RUBYOPT", "BUNDLE_GEMFILE")
    assert_kind_of Rackbench::Server::PumaJruby, Rackbench::Server.adapter("puma", runtime: "jruby")
    assert_kind_of Rackbench::Server::Puma, Rackbench::Server.adapter("puma", runtime: "yjit")
  end

  def test_a_missing_or_broken_home_or_java_is_one_line_saying_what_to_do
    Dir.mktmpdir do |dir|
      # A Java that answers `java -version` as OpenJDK 17 does, so the JRuby
      # home is judged here whether or not this machine has Java.
      java = File.join(dir, "java")
      File.write(java, "#!/bin/sh\necho 'openjdk version \"17.0.15\" 2025-04-15' >&2\n")
      File.chmod(0o755, java)
      home = File.join(dir, "home")
      rt = Rackbench::Runtime::Jruby.new(home: home, gem_home: File.join(dir, "gems"), java: java)
      assert_equal "17.0.15", rt.java_version
      assert_match(/JRuby is not installed \(.*home is missing\): point RACKBENCH_JRUBY_HOME at a JRuby home/, rt.problem)
      own = Rackbench::Runtime::Jruby.new(home: File.join(Rackbench::Runtime::Jruby::ROOT, "no-such-version"), java: java)
      assert_match(%r{JRuby is not installed \(.*no-such-version is missing\): run bin/setup}, own.problem)
      FileUtils.mkdir_p(File.join(home, "bin"))
      File.write(File.join(home, "bin", "jruby"), "#!/bin/sh\n")
      assert_match(%r{incomplete \(no lib/jruby.jar, bin/.jruby.module_opts\)}, rt.problem)
      no_java = Rackbench::Runtime::Jruby.new(home: home, java: File.join(dir, "no-java"))
      assert_equal "Java is not installed (JRuby runs on it): run apt-get install -y openjdk-17-jre-headless", no_java.problem
      e = assert_raises(Rackbench::UsageError) { no_java.check! }
      assert_match(/\Asetups "on jruby" cannot run: Java is not installed/, e.message)
    end
  end
end
