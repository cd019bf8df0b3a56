# frozen_string_literal: true

module Rackbench
  # One check's outcome, as `rackbench doctor` prints it: a level (:ok,
  # :warn, :fail), what was checked, and what it found or what to do. Its
  # own file so the checks of any folder (Load::Remote::DoctorChecks) make
  # them without requiring the doctor, which requires them.
  Finding = Struct.new(:level, :topic, :text, keyword_init: true)
end
