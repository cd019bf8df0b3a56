# frozen_string_literal: true

# Reads a recorded fixture from the including test class's FIXTURES folder.
module FixtureFiles
  def fixture(name)
    File.read(File.join(self.class::FIXTURES, name))
  end
end
