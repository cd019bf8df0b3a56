# frozen_string_literal: true

require_relative "../error"
require_relative "../suggest"
require_relative "config"
require_relative "../store/target"
require_relative "../workload/app"

module Rackbench
  # A plan file: a small Ruby DSL, trusted like a Gemfile (it is Ruby and runs
  # as such: only run plan files you would run as code).
  #
  #   setup "puma x2:5"
  #   setup "unicorn x2"
  #   endpoint "/hello", "/pause/0.05"
  #   concurrency 1, 4, 16
  #   duration 2
  #
  # Every setting of Config::DEFAULTS is a keyword; setup and endpoint may be
  # repeated (the plural forms take lists).
  class PlanFile
    LISTS = { setup: :setups, endpoint: :endpoints, concurrency: :concurrency, expect_status: :expect_status,
              load_host: :load_hosts }.freeze

    def self.load(path)
      text = readable_text(path)
      settings = without_exit!(path) { new(path).tap { |dsl| dsl.instance_eval(text, path, 1) }.settings }
      if settings.empty?
        raise UsageError, "plan file #{path} sets nothing (write settings such as: setup \"puma x2:5\"; endpoint \"/hello\"); " \
                          "without a plan file, rackbench run runs the quick plan"
      end
      relative_to_plan(settings, File.dirname(File.expand_path(path)))
    rescue Errno::ENOENT, Errno::EACCES, Errno::EISDIR => e
      raise UsageError, "cannot read plan file #{path}: #{Error.reason(e)}"
    rescue LoadError => e
      raise UsageError, "plan file #{path}#{where(e, path)} requires what cannot be loaded: #{e.message.lines.first.strip.scrub}; " \
                        "a plan file only sets settings"
    rescue SystemExit
      raise UsageError, "plan file #{path} calls exit; a plan file only sets settings (setup, endpoint, concurrency ...)"
    rescue SyntaxError => e
      line = e.message[/:(\d+):/, 1]
      raise UsageError, "plan file #{path}#{line ? ":#{line}" : ''} has a Ruby syntax error: " \
                        "#{e.message.lines.first.sub(/\A.*?:\d+: /, '').strip}"
    rescue UsageError
      raise
    rescue StandardError, NoMemoryError, SystemStackError, Interrupt, ScriptError => e
      # Not Interrupted (a signal to rackbench while it reads the plan): that one stops the command.
      raise UsageError, "plan file #{path}#{where(e, path)} raised #{e.class}: #{e.message.scrub.lines.first.to_s.strip}"
    end

    # Process.exit! and Kernel.exit! end rackbench at once, with no cleanup
    # and no word (a bare exit! is the DSL's own, below): while the plan
    # file runs they raise its one line instead, and are put back after.
    def self.without_exit!(path)
      owners = [Process, Kernel]
      saved = owners.to_h { |m| [m, m.method(:exit!)] }
      owners.each do |m|
        m.define_singleton_method(:exit!) do |*|
          line = caller_locations(1, 8).find { |l| l.path == path }&.lineno
          raise UsageError, "plan file #{path}#{line ? ":#{line}" : ''} calls #{m}.exit!; a plan file only sets settings " \
                            "(setup, endpoint, concurrency ...)"
        end
      end
      yield
    ensure
      saved&.each { |m, original| m.define_singleton_method(:exit!, original) }
    end

    # A plan's own paths (app, out) are relative to the plan file's
    # directory, wherever rackbench is run from.
    # The file's text, refused when it is not text a person wrote (NUL
    # bytes, or bytes that are not UTF-8): a binary file is not a plan.
    def self.readable_text(path)
      text = File.read(path)
      text.force_encoding(Encoding::UTF_8)
      bad = text.index("\0") || (text.valid_encoding? ? nil : text.scrub("\0").index("\0"))
      return text unless bad

      raise UsageError, "plan file #{path} is not text (a binary byte at offset #{bad}); give a Ruby plan file such as " \
                        "one with: setup \"puma x2:5\""
    end

    def self.relative_to_plan(settings, dir)
      settings = settings.dup
      settings[:app] = Workload::App.expand(settings[:app], base: dir) if settings.key?(:app)
      settings[:out] = Store::Target.expand(settings[:out], option: "out", base: dir) if settings.key?(:out)
      settings
    end

    def self.where(error, path)
      frame = error.backtrace_locations&.find { |l| l.path == path }
      frame ? ":#{frame.lineno}" : ""
    end

    attr_reader :settings

    def initialize(path)
      @path = path
      @settings = {}
    end

    def setup(*labels)
      add(:setups, labels)
    end

    def endpoint(*paths)
      add(:endpoints, paths)
    end

    def concurrency(*levels)
      add(:concurrency, levels)
    end

    def expect_status(*codes)
      add(:expect_status, codes)
    end

    def load_host(*hosts)
      add(:load_hosts, hosts)
    end

    alias setups setup
    alias endpoints endpoint

    Config::DEFAULTS.each_key do |key|
      next if LISTS.value?(key)

      define_method(key) { |value| @settings[key] = value }
    end

    # Kernel#exit! would end rackbench at once, running no cleanup and
    # saying nothing: refused like exit.
    def exit!(*)
      line = caller_locations(1, 1).first&.lineno
      raise UsageError, "plan file #{@path}:#{line} calls exit!; a plan file only sets settings (setup, endpoint, concurrency ...)"
    end

    def method_missing(name, *_args)
      words = (Config.keys - LISTS.values) + LISTS.keys
      line = caller_locations(1, 1).first&.lineno
      raise UsageError, "plan file #{@path}:#{line}: unknown keyword #{name.to_s.inspect}" \
                        "#{Suggest.did_you_mean(name, words)}; accepted: #{words.sort.join(', ')}"
    end

    def respond_to_missing?(_name, _include_private = false)
      false
    end

    private

    def add(key, values)
      (@settings[key] ||= []).concat(values.flatten)
    end
  end
end
