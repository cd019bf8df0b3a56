# frozen_string_literal: true

require "cgi"
require "json"
require "digest"
require "base64"

module Rackbench
  module Report
    class Html
      # The two ways outside text enters the page, both escaped here and only
      # here: as HTML text/attributes (h) and as JSON data for the page's script
      # (json_for_script). Setup labels, versions, paths, URLs and meta values
      # all come from outside.
      module Escape
        module_function

        # HTML-escapes & < > " ' so text can sit in an element or a quoted attribute.
        def h(text)
          CGI.escapeHTML(text.to_s)
        end

        # JSON safe inside <script type="application/json">: every < > & and the
        # JS line separators become \u escapes, so neither "</script>" nor "<!--"
        # in a label can end the element or open a comment. JSON.parse undoes it.
        def json_for_script(value)
          JSON.generate(value)
              .gsub("<", "\\u003c").gsub(">", "\\u003e").gsub("&", "\\u0026")
              .gsub("\u2028", "\\u2028").gsub("\u2029", "\\u2029")
        end

        # Makes a trusted script file safe to inline: a "</script" inside it
        # (there is none in Chart.js 4, but a refresh could add one) is broken
        # up, and the source-map comment (a file the report does not ship) is dropped.
        def inline_script(source)
          source.gsub(%r{^//# sourceMappingURL=.*$}, "").gsub(%r{</(script)}i, "<\\\\/\\1")
        end

        # The CSP source for an inline script, so only the page's own scripts run.
        def csp_hash(source)
          "'sha256-#{Base64.strict_encode64(Digest::SHA256.digest(source))}'"
        end
      end
    end
  end
end
