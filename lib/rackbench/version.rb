# frozen_string_literal: true

module Rackbench
  VERSION = "0.2.0"
end
