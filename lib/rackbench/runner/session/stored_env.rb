# frozen_string_literal: true

module Rackbench
  class Runner
    class Session
      # The server's environment as setups.jsonl stores it: the variables
      # rackbench set for the server (the run's own are not stored), secrets
      # masked, unset variables shown as unset.
      module StoredEnv
        SECRET = /SECRET|TOKEN|PASSWORD|KEY_BASE/

        module_function

        # adapter_env: the adapter's env for the setup; app_env: the app's;
        # server_env: all the server got (only its runtime flags are taken).
        def of(adapter_env, app_env, server_env)
          redact(adapter_env.merge(app_env, server_env.slice("RUBYOPT", "RUBY_YJIT_ENABLE")))
        end

        def redact(env)
          env.to_h { |k, v| [k, k.match?(SECRET) && v ? "(generated, not stored)" : (v || "(unset)")] }
        end
      end
    end
  end
end
