# frozen_string_literal: true

require_relative "base"

module Rackbench
  module Server
    # Thin: one EventMachine process ("thin"); requests run one at a time on
    # its reactor thread. Graceful stop: QUIT or TERM (INT stops at once);
    # Thin handles signals on a one-second timer, so a stop takes ~1 s.
    class Thin < Base
      KEY = "thin"
      register order: 3

      def self.only_one_process? = true
      def self.default_label(_cores) = "thin"
      def self.footprint_label = "thin"
      def self.deploy_command(_setup) = "bundle exec thin -C config/thin.yml start"
      def self.no_tls = nil

      def self.deploy_files(_setup, comment)
        { "config/thin.yml" => <<~YAML }
          #{comment}

          servers: 1
          address: 0.0.0.0
          port: 3000
          environment: production
          rackup: config.ru
        YAML
      end

      def graceful_signal
        "QUIT"
      end

      # tls: EventMachine's TLS with the run's key and certificate.
      def argv(setup, app:, port:, dir:, host: "127.0.0.1", tls: nil)
        cmd = [*launch(setup), "start", "-e", "production", "-a", host, "-p", port.to_s, "-R", app,
               "--pid", File.join(dir, "thin.pid"), "--tag", "rackbench"]
        cmd += ["--ssl", "--ssl-key-file", tls.key_path, "--ssl-cert-file", tls.cert_path] if tls
        cmd
      end

      def runs_one_process?(_setup)
        true
      end
    end
  end
end
