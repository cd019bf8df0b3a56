# frozen_string_literal: true

module Rackbench
  VERSION = "0.1.0"
end
