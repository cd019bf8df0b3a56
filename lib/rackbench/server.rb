# frozen_string_literal: true

require_relative "server/registry"
require_relative "process_control/server_instance"

# Every adapter in server/ (each registers itself; Server::ADAPTERS keeps
# them in their stated order, whatever order the files load in).
Dir[File.join(__dir__, "server", "*.rb")].sort.each { |file| require file }
