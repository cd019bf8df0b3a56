# frozen_string_literal: true

require "test_helper"
require "json"
require "support/server_contract"

class PumaClusterTest < Minitest::Test
  include ServerContract
  def setup_label = "puma x2:3"
end

class PumaSingleTest < Minitest::Test
  include ServerContract
  def setup_label = "puma x1:4"
end

class UnicornTest < Minitest::Test
  include ServerContract
  def setup_label = "unicorn x2"
end

class ThinTest < Minitest::Test
  include ServerContract
  def setup_label = "thin"
end

class PassengerTest < Minitest::Test
  include ServerContract
  def setup_label = "passenger x2"
end

class FalconTest < Minitest::Test
  include ServerContract
  def setup_label = "falcon x2"
end

class FalconNoPreloadTest < Minitest::Test
  include ServerContract
  def setup_label = "falcon x1 nopreload"
end

class PitchforkTest < Minitest::Test
  include ServerContract
  def setup_label = "pitchfork x2"
end

class ItsiTest < Minitest::Test
  include ServerContract
  def setup_label = "itsi x2:2"
end

class ItsiFibersTest < Minitest::Test
  include ServerContract
  def setup_label = "itsi x1 fibers"
end

class IodineTest < Minitest::Test
  include ServerContract
  def setup_label = "iodine x2:2"
end

class AgooTest < Minitest::Test
  include ServerContract
  def setup_label = "agoo x2:2"
end
