# frozen_string_literal: true

require_relative "lib/rackbench/version"

Gem::Specification.new do |spec|
  spec.name = "rackbench"
  spec.version = Rackbench::VERSION
  spec.summary = "Benchmark Ruby app servers (Puma, Unicorn, Thin, Passenger) on your own app and machine"
  spec.description = "rackbench boots real Ruby app servers, drives them with wrk, samples their processes " \
                     "and stores every trial in a run directory you can re-render and compare."
  spec.authors = ["rackbench developers"]
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.1"
  spec.files = Dir["lib/**/*", "apps/**/*", "exe/*", "README.md", "CHANGELOG.md"]
               .reject { |f| f.start_with?("apps/rails/vendor/", "apps/rails/.bundle/") } # its own bundle, per machine
               .reject { |f| f.start_with?("apps/rails/vendor/", "apps/rails/.bundle/") } # its own bundle, per machine
  spec.bindir = "exe"
  spec.executables = ["rackbench"]
  spec.require_paths = ["lib"]
  spec.add_dependency "rack", ">= 2.2"
  spec.add_dependency "sshkit", "~> 1.25"
  spec.add_dependency "ed25519", "~> 1.4"
  spec.add_dependency "bcrypt_pbkdf", "~> 1.1"
end
