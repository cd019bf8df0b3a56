# frozen_string_literal: true

module Rackbench
  module Config
    # The command-line flags, as data: what a flag is called, its help, its
    # default and how its text is parsed (CLI::Options reads them into
    # OptionParser; its own `declare` writes here). It lives in plan/ so that
    # a rule file can declare the flag of the setting it checks (issue 45:
    # a new setting is its line in DEFAULTS plus, if it needs one, its rule
    # file, where its flag is declared too; `run` takes every flag whose key
    # is a setting). No flag is parsed here.
    #
    #   key      where the value goes in the command's options hash (a
    #            DEFAULTS key for what Config validates)
    #   help     a line, or lines (the first takes the default), or a Proc
    #            giving them when the help is made (the formats registered then)
    #   default  :config: DEFAULTS[key] (Config applies it; help shows it); a
    #            String: the default as a user would type it, parsed like a
    #            typed value; nil: none
    #   rule     a default that is a rule rather than a value (help only)
    #   parse    the typed text -> the stored value (Config validates the rest)
    #   many     repeatable: values are collected in order
    #   owner    the rule that declared it (nil: CLI::Options)
    module Flags
      Option = Struct.new(:key, :flags, :help, :default, :rule, :parse, :many, :owner, keyword_init: true)
      DECLARED = {}
      TEXT = ->(v) { v }

      def self.declare(key, *flags, help, default: nil, rule: nil, many: false, parse: TEXT, owner: nil)
        raise ArgumentError, "the flag of #{key} is declared twice" if DECLARED.key?(key)

        DECLARED[key] = Option.new(key: key, flags: flags, help: help, default: default, rule: rule, parse: parse,
                                   many: many, owner: owner)
      end
    end
  end
end
