# frozen_string_literal: true

require_relative "../../error"

module Rackbench
  module Config
    module Rules
      # --profile runs stackprof inside the server processes rackbench boots,
      # through the in-server profile RUBYOPT loads (Runtime::Flags): not in
      # the server at --url (not ours), nor on JRuby (no RUBYOPT hook, no
      # stackprof). Whether stackprof loads in a user's bundle is checked
      # against the app (ServerCheck, Workload::ProfileCheck).
      module Profile
        ORDER = 110 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          return unless cfg[:profile]

          if cfg[:url]
            raise UsageError, "--profile runs inside a server rackbench boots; the server at --url is your own: drop --profile " \
                              "(or profile it yourself)"
          end
          jruby = Array(cfg[:setups]).select { |s| s.respond_to?(:runtime) && s.runtime == "jruby" }
          return if jruby.empty?

          raise UsageError, "--profile cannot profile #{jruby.map(&:label).join(', ')}: stackprof runs on CRuby only; " \
                            "drop those setups or --profile"
        end
      end
    end
  end
end
