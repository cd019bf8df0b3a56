# frozen_string_literal: true

require "openssl"
require "fileutils"
require "ipaddr"
require_relative "run_file"

module Rackbench
  # --tls: one self-signed certificate per run, made with Ruby's OpenSSL and
  # written only into the run directory (tls/cert.pem, tls/key.pem, the key
  # readable by its owner alone). It names localhost, 127.0.0.1, ::1 and the
  # address the servers listen on (--bind), so a client checking it against
  # itself as the authority (rackbench's probes do) accepts it there.
  #
  # The key is RSA 2048 in PKCS#8 PEM ("BEGIN PRIVATE KEY"), the form every
  # server here reads (Itsi's rustls reads PKCS#8 only); valid for a week.
  module Tls
    Certificate = Struct.new(:cert_path, :key_path, :names, keyword_init: true) do
      def to_h = { "cert" => cert_path, "key" => key_path, "names" => names }
    end

    # A server that is not rackbench's (--url https://...): its certificate
    # is the user's, not checked (the probes' handshake still has to succeed).
    UNCHECKED = Certificate.new(names: []).freeze

    # The certificate the probes hold a URL's server to: none for http://.
    def self.for_url(url, run = nil)
      return run if run
      return nil unless url.to_s.start_with?("https://")

      UNCHECKED
    end

    DIR = "tls"
    DAYS = 7

    module_function

    # The run's certificate, made on first use (a resumed run keeps its own).
    def for_run(run_dir, bind: "127.0.0.1")
      dir = File.join(run_dir, DIR)
      cert_path = File.join(dir, "cert.pem")
      key_path = File.join(dir, "key.pem")
      names = names_for(bind)
      generate(cert_path, key_path, names) unless File.exist?(cert_path) && File.exist?(key_path)
      Certificate.new(cert_path: cert_path, key_path: key_path, names: names)
    end

    def names_for(bind)
      (["DNS:localhost", "IP:127.0.0.1", "IP:::1"] + [address_name(bind)]).compact.uniq
    end

    def address_name(bind)
      return nil if bind.nil? || bind.empty? || bind == "0.0.0.0"

      IPAddr.new(bind)
      "IP:#{bind}"
    rescue IPAddr::InvalidAddressError
      "DNS:#{bind}"
    end

    def generate(cert_path, key_path, names)
      FileUtils.mkdir_p(File.dirname(cert_path))
      key = OpenSSL::PKey::RSA.new(2048)
      cert = OpenSSL::X509::Certificate.new
      cert.version = 2
      cert.serial = OpenSSL::BN.rand(64)
      cert.subject = cert.issuer = OpenSSL::X509::Name.parse("/CN=rackbench benchmark (localhost)")
      cert.public_key = key.public_key
      cert.not_before = Time.now - 60
      cert.not_after = Time.now + (DAYS * 86_400)
      ext = OpenSSL::X509::ExtensionFactory.new(cert, cert)
      cert.add_extension(ext.create_extension("basicConstraints", "CA:TRUE", true))
      cert.add_extension(ext.create_extension("keyUsage", "digitalSignature,keyEncipherment,keyCertSign", true))
      cert.add_extension(ext.create_extension("extendedKeyUsage", "serverAuth", false))
      cert.add_extension(ext.create_extension("subjectAltName", names.join(","), false))
      cert.add_extension(ext.create_extension("subjectKeyIdentifier", "hash", false))
      cert.sign(key, OpenSSL::Digest.new("SHA256"))
      RunFile.replace(key_path, key.private_to_pem, 0o600)
      RunFile.replace(cert_path, cert.to_pem)
    end
  end
end
