# frozen_string_literal: true

require "json"
require "shellwords"
require_relative "../error"
require_relative "../plan/config"

module Rackbench
  module CLI
    # What `run --resume DIR` takes from DIR, and what it takes only from the
    # user. A run directory is data: anyone can hand one over (a copied
    # directory, an attachment, a committed run), and its meta.json can say
    # anything. The plan's settings (setups, endpoints, levels, lengths) are
    # taken from it: they choose among rackbench's own servers and loads. What
    # would run code or reach beyond this machine's servers is not:
    #
    #   app          a config.ru (Ruby the servers load), unless built in
    #   url          a server to send load to
    #   load_hosts   machines to open SSH connections to
    #   setup_cmd    a shell command run in the app's directory (--setup-cmd)
    #
    # each must be given again on the command line, the same as DIR names it,
    # or --resume is refused in one line that shows the command to type. A
    # value given that DIR does not name, or names otherwise, is refused too:
    # a run is resumed on what it was run on. `bisect --resume DIR` takes its
    # app the same way (CLI::BisectCommand).
    module ResumeTrust
      KEYS = %i[app url load_hosts setup_cmd].freeze
      BUILT_IN = %w[arena rails].freeze
      COMMIT = /\A(\h{40}|\h{64})\z/.freeze

      module_function

      # The command that resumes dir: `rackbench run --resume DIR` with the
      # values it must be given again (read from dir's meta.json, by the
      # run that wrote it: an interrupted run's hint).
      def command(dir)
        config = (JSON.parse(File.read(File.join(dir, "meta.json")))["config"] rescue nil)
        again = config.is_a?(Hash) ? again(named(config)) : []
        Shellwords.join(["rackbench", "run", "--resume", dir, *again])
      end

      # The command that goes on with the bisection in dir (`rackbench bisect
      # --resume DIR --app APP`: the app its bisect.json names, given again).
      def bisect_command(dir)
        options = (JSON.parse(File.read(File.join(dir, "bisect.json")))["options"] rescue nil)
        options = {} unless options.is_a?(Hash)
        app = options["app"]
        Shellwords.join(["rackbench", "bisect", "--resume", dir, *(app.is_a?(String) ? ["--app", app] : []),
                         *again(named(options.slice("setup_cmd")))])
      end

      # bisect --resume: the setup command bisect.json names is run only
      # when given again, the same (as run --resume's, #check!).
      def bisect_setup!(dir, stored, given)
        named = stored_value(:setup_cmd, stored)
        value = given.nil? ? nil : given_value(:setup_cmd, given)
        return if named == value

        raise UsageError, "--setup-cmd #{value} is not what #{dir} was run with (#{named || 'none'}): drop it" if value

        raise UsageError, "#{dir} names the setup command #{named}; --resume runs only what you name again, as a run " \
                          "directory is data: #{bisect_command(dir)}"
      end

      def named(stored) = KEYS.to_h { |k| [k, stored_value(k, stored[k.to_s])] }.compact
      # --setup-cmd=CMD in one word: its argument is optional, so a command
      # starting with "-" would not be taken as one.
      def again(named) = named.flat_map { |key, value| Array(value).flat_map { |v| key == :setup_cmd ? ["#{flag(key)}=#{v}"] : [flag(key), v] } }

      # stored: meta.json's config (string keys); given: the command line's
      # values (symbol keys). UsageError when they do not agree.
      def check!(dir, stored, given)
        commits!(dir, stored["refs"])
        named = named(stored)
        KEYS.each do |key|
          next if given[key].nil?

          value = given_value(key, given[key])
          next if named[key] == value

          raise UsageError, "#{flag(key)} #{shown(value)} is not what #{dir} was run with (#{named[key] ? shown(named[key]) : 'none'}); " \
                            "a run is resumed on what it measured: drop it, or start a new run with another --out"
        end
        gone!(dir, named[:app])
        missing = named.reject { |key, _| given[key] }
        return if missing.empty?

        words = missing.map { |key, value| "#{what(key)} #{shown(value)}" }.join(" and ")
        raise UsageError, "#{dir} names #{words}; --resume runs only what you name again, as a run directory is data: " \
                          "#{Shellwords.join(['rackbench', 'run', '--resume', dir, *again(missing)])}"
      end

      # A --ref run's commits, as meta.json names them: checked out from the
      # app given again, so each must be a full commit id (a value such as
      # "--orphan" would reach git as an option) with a name.
      def commits!(dir, refs)
        Array(refs).each_with_index do |ref, i|
          wrong = if !ref.is_a?(Hash) then "config.refs[#{i}] is #{ref.inspect[0, 40]}, not a JSON object"
                  elsif !ref["name"].is_a?(String) then "config.refs[#{i}].name is #{ref['name'].inspect[0, 40]}, not a string"
                  elsif !COMMIT.match?(ref["sha"].to_s)
                    "config.refs[#{i}].sha is #{ref['sha'].inspect[0, 40]}, not a full commit id (40 or 64 hex digits)"
                  end
          raise Error, "#{dir}/meta.json is damaged: #{wrong}; restore it, or run again with another --out" if wrong
        end
      end

      # The app the run measured, deleted or moved since: the command to type
      # again could only fail, so say what happened instead.
      def gone!(dir, app)
        return if app.nil? || File.exist?(app)

        raise UsageError, "#{dir} was run on the app #{app}, which is no longer there (deleted or moved): --resume " \
                          "measures the app the run measured; put it back there and run again, or measure the app " \
                          "where it is now with a new run (another --out)"
      end

      def stored_value(key, value)
        case key
        when :app then value.nil? || BUILT_IN.include?(value) ? nil : File.expand_path(value.to_s)
        when :load_hosts then Array(value).empty? ? nil : Array(value).map(&:to_s)
        when :setup_cmd then value.to_s.strip.empty? ? nil : value.to_s # "": none runs
        else value&.to_s
        end
      end

      def given_value(key, value)
        case key
        when :app then BUILT_IN.include?(value) ? nil : File.expand_path(value.to_s)
        when :load_hosts then Array(value).map { |h| h.respond_to?(:spec) ? h.spec : h.to_s }
        when :setup_cmd then value.to_s.strip.empty? ? nil : value.to_s
        else value.to_s
        end
      end

      def flag(key) = Config.flag(key)
      def what(key) = { app: "the app", url: "the server", load_hosts: "the load host(s)", setup_cmd: "the setup command" }.fetch(key)
      def shown(value) = Array(value).join(", ")
    end
  end
end
