# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "open3"
require "tmpdir"
require "rbconfig"

# Issue 45's Done-when, walked: a new setting is one line in Config's
# DEFAULTS plus one rule file (its check and, when it wants one, its flag),
# and no other file changes to carry it. In a copy of lib/, the test adds
# exactly those two and asks the copy, in its own Ruby, for run's help, a
# refusal by the new rule and the built settings (a plan file's layer too).
class NewSettingTest < Minitest::Test
  LIB = File.expand_path("../../../lib", __dir__)
  LINE = "      sample_burst: 3,       # run --sample-burst N: a test's new setting; Rules::SampleBurst\n"
  RULE = <<~RUBY
    # frozen_string_literal: true

    require_relative "../../error"
    require_relative "../flags"

    module Rackbench
      module Config
        module Rules
          # A test's new setting (test/unit/plan/new_setting_test.rb).
          module SampleBurst
            ORDER = 175
            Flags.declare :sample_burst, "--sample-burst N", "a test's burst size", default: :config, owner: self,
                                                                                     parse: ->(v) { Integer(v, 10) }

            module_function

            def check(cfg)
              raise UsageError, "--sample-burst takes 1 or more (got \#{cfg[:sample_burst]})" if cfg[:sample_burst] < 1

              nil
            end
          end
        end
      end
    end
  RUBY

  def ask(lib, code)
    out, err, status = Open3.capture3(RbConfig.ruby, "-I", lib, "-e", code)
    [out, err, status.exitstatus]
  end

  def test_one_line_in_the_defaults_and_one_rule_file_carry_a_new_setting
    Dir.mktmpdir do |dir|
      FileUtils.cp_r(LIB, dir)
      lib = File.join(dir, "lib")
      config = File.join(lib, "rackbench/plan/config.rb")
      text = File.read(config)
      File.write(config, text.sub("    DEFAULTS = {\n") { "    DEFAULTS = {\n#{LINE}" })
      File.write(File.join(lib, "rackbench/plan/rules/sample_burst.rb"), RULE)
      changed = Dir.glob("**/*", base: lib).reject { |f| File.directory?(File.join(lib, f)) }
                   .reject { |f| File.exist?(File.join(LIB, f)) && File.read(File.join(LIB, f)) == File.read(File.join(lib, f)) }
      assert_equal %w[rackbench/plan/config.rb rackbench/plan/rules/sample_burst.rb], changed.sort, "two files and no other"

      cli = 'require "rackbench/cli"; exit Rackbench::CLI.call(ARGV.dup)'
      out, err, code = ask(lib, "#{cli.sub('ARGV.dup', '%w[run --help]')}")
      assert_equal 0, code, err
      assert_match(/--sample-burst N\s+a test's burst size \(default 3\)/, out)

      _, err, code = ask(lib, cli.sub("ARGV.dup", "%w[run --sample-burst 0]"))
      assert_equal 2, code
      assert_equal "Error: --sample-burst takes 1 or more (got 0)", err.strip.lines.last.strip

      out, err, code = ask(lib, 'require "rackbench/plan/config"; c = Rackbench::Config; ' \
                                'p [c.build[:sample_burst], c.build({ sample_burst: 7 })[:sample_burst], ' \
                                'c.load(c.dump(c.build({ sample_burst: 5 })))[:sample_burst]]')
      assert_equal 0, code, err
      assert_equal "[3, 7, 5]", out.strip, "its default, a layer's value, and meta.json's shape read back"
    end
  end
end
