# frozen_string_literal: true

require_relative "base"

module Rackbench
  module Server
    # Iodine (facil.io, a C event loop): "iodine xW:T" runs W processes of T
    # Ruby threads; facil.io reads and writes the sockets, and each request
    # holds one of the T threads while the app runs (slots: W x T, as Puma).
    # W = 1 runs one process that serves itself; W > 1 a root process forking
    # W workers, which serve (its THREADS and WORKERS variables yield to the
    # command line). Iodine 0.8 needs Ruby >= 3.2: 0.7 runs here.
    # Graceful stop: TERM (or INT): facil.io stops accepting, lets each
    # connection finish sending (up to 8 s) and exits; the root stops its
    # workers the same way.
    class Iodine < Base
      KEY = "iodine"
      register order: 8

      # Iodine's own advice for Rails (RAILS_MAX_THREADS, 5): it has no fixed default.
      def self.threads = 5
      # Requests beyond its threads wait in its own queue, not the kernel's (Stats::Verdict).
      def self.queues_inside? = true
      def self.footprint_label = "iodine x2:1"
      def self.no_tls = nil
      def self.deploy_command(setup) = "bundle exec iodine -w #{setup.workers} -t #{setup.threads} -p $PORT"

      # tls: its own TLS (OpenSSL, built in when the gem compiled against it) with the run's files.
      def argv(setup, app:, port:, dir:, host: "127.0.0.1", tls: nil)
        tls_args = tls ? ["-tls-cert", tls.cert_path, "-tls-key", tls.key_path] : []
        [*launch(setup), "-b", host, "-p", port.to_s, "-w", setup.workers.to_s, "-t", setup.threads.to_s, *tls_args, app]
      end

      def runs_one_process?(setup)
        setup.workers == 1
      end
    end
  end
end
