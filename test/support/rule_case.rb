# frozen_string_literal: true

require "rackbench/plan/config"

# One rule of Config::RULES checked alone: the default config, built, with
# some settings replaced by values in their parsed form (as Config::Values
# leaves them), then the rule's check on it. A test names its rule.
module RuleCase
  def settings(**over)
    Rackbench::Config.build.dup.merge(over)
  end

  def setups(*labels)
    labels.map { |label| Rackbench::Setup.parse(label) }
  end

  # The settings after the rule passed them (a rule may settle a value).
  def passes(**over)
    cfg = settings(**over)
    rule.check(cfg)
    cfg
  end

  # The rule's message for settings it refuses.
  def refused(**over)
    assert_raises(Rackbench::UsageError) { rule.check(settings(**over)) }.message
  end
end
