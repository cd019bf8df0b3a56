# frozen_string_literal: true

require "rackbench/plan/config"

# One rule of Config::RULES checked alone: the default config, built (its
# Hash, as Config.validate hands the rules before it freezes a Settings), with
# some settings replaced by values in their parsed form (as Config::Values
# leaves them), then the rule's check on it. A test names its rule.
module RuleCase
  def settings(**over)
    Rackbench::Config.build.to_h.merge(over)
  end

  def setups(*labels)
    labels.map { |label| Rackbench::Setup.parse(label) }
  end

  # The settings after the rule passed them (a rule may settle a value: it
  # returns it, nil otherwise; the settings it reads are frozen).
  def passes(**over)
    cfg = settings(**over)
    settled = rule.check(cfg.dup.freeze)
    assert(settled.nil? || settled.is_a?(Hash), "#{rule} returned #{settled.inspect}: a rule returns nil or what it settles")
    Rackbench::Config.apply(rule, cfg)
  end

  # The rule's message for settings it refuses.
  def refused(**over)
    assert_raises(Rackbench::UsageError) { rule.check(settings(**over)) }.message
  end
end
