# frozen_string_literal: true

require "json"

module Rackbench
  class Runner
    class Verify
      # What a right answer from each arena endpoint looks like. Returns a
      # one-line problem, or nil when the response is right.
      module ArenaChecks
        PI_PREFIX = "3.14159265358979"

        module_function

        def problem(path, res, server: nil, upstream_bytes: nil)
          case path
          when "/hello" then expect(res.body == "Hello, world!\n", "body #{res.body[0, 40].inspect}, expected \"Hello, world!\"")
          when "/health" then expect(res.body.strip == "ok", "body #{res.body[0, 40].inspect}, expected \"ok\"")
          when %r{\A/fibonacci/(\d+)\z} then fibonacci(Integer(Regexp.last_match(1), 10), res)
          when %r{\A/pi/(\d+)\z} then pi(Integer(Regexp.last_match(1), 10), res)
          when "/server" then server_name(res, server)
          when %r{\A/pause/} then json_has(res, "slept")
          when "/network-io" then network(res, upstream_bytes)
          when "/template-render", %r{\A/pause-and-render/}, "/network-io-and-render" then html(res)
          when "/random" then res.status == 200 ? nil : "status #{res.status}"
          when "/articles" then articles(res)
          end
        end

        # The Rails workload's seed 001 page: its 10 articles as table rows.
        def articles(res)
          rows = res.body.scan(/<tr id="article_\d+"/).size
          expect(rows == 10, "#{rows} article rows, expected seed 001's 10 (bin/setup seeds them: apps/rails/db/seeds.rb)")
        end

        def expect(ok, problem)
          ok ? nil : problem
        end

        def fibonacci(n, res)
          want = (1..n).reduce([0, 1]) { |(a, b), _| [b, a + b] }.first
          got = parse(res)&.fetch("value", nil)
          expect(got == want, "fibonacci(#{n}) answered #{got.inspect}, expected #{want}")
        end

        def pi(digits, res)
          body = res.body.strip
          return "pi does not begin #{PI_PREFIX}: #{body[0, 20].inspect}" unless body.start_with?(PI_PREFIX[0, [digits + 2, PI_PREFIX.size].min])

          expect(body.size == digits + 2, "pi has #{body.size - 2} decimals, expected #{digits}")
        end

        def server_name(res, server)
          got = parse(res)&.fetch("server", nil)
          return nil if server.nil?

          expect(got == server, "/server names #{got.inspect}, but the server under test is #{server.inspect}")
        end

        def network(res, bytes)
          got = parse(res)&.fetch("bytes", nil)
          return "no bytes count in #{res.body[0, 60].inspect}" if got.nil?

          expect(bytes.nil? || got == bytes, "upstream body was #{got} bytes, expected #{bytes}")
        end

        def json_has(res, key)
          expect(parse(res)&.key?(key), "expected JSON with #{key.inspect}, got #{res.body[0, 60].inspect}")
        end

        def html(res)
          expect(res.content_type.start_with?("text/html") && res.body.include?("</html>"),
                 "expected an HTML page, got #{res.content_type} #{res.body[0, 40].inspect}")
        end

        def parse(res)
          JSON.parse(res.body)
        rescue JSON::ParserError
          nil
        end
      end
    end
  end
end
