# frozen_string_literal: true

require "stringio"
require "rackbench/cli"

# A command's --help as a user reads it, and the line of one flag in it.
module HelpText
  def help(command)
    out = StringIO.new
    assert_equal 0, Rackbench::CLI.call([command, "--help"], out: out, err: StringIO.new, env: {})
    out.string
  end

  def line(text, flag)
    text.lines.find { |l| l.start_with?(" ") && l.include?(flag) } or flunk "#{flag} is not in the help"
  end
end
