# frozen_string_literal: true

module Rackbench
  # Secrets kept out of what rackbench stores or prints back: a password in
  # a URL's userinfo (--url http://user:secret@host/) is replaced by ***
  # wherever a command line is recorded (meta.json, the run lock, hints).
  # rackbench itself never sends URL credentials (wrk ignores userinfo), and
  # the --url it keeps is the base without them.
  module Redact
    # user:password@ after "scheme://", or at the start (a URL typed without its scheme)
    USERINFO = %r{((?:\A|//)[^/@\s:]*):[^/@\s]*@}.freeze

    module_function

    def text(value)
      value.to_s.gsub(USERINFO, '\1:***@')
    end

    def argv(args)
      args.map { |a| text(a) }
    end
  end
end
