# frozen_string_literal: true

module Rackbench
  # An endpoint as it goes on the request line: the user's path with every
  # byte HTTP does not allow there percent-encoded (RFC 3986: unreserved,
  # sub-delims, ":", "@", "/", "?" and an existing "%XX" stay as written), so
  # "/search?q={x}" or "/café" can be sent; labels and reports keep the path
  # as the user wrote it. White space and control characters are refused
  # earlier (Units.endpoint), since their meaning is unclear.
  module RequestPath
    module_function

    def encode(path)
      path.to_s.b.gsub(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@\/?%]/n) { |c| format("%%%02X", c.ord) }
          .force_encoding(Encoding::US_ASCII)
    end
  end
end
