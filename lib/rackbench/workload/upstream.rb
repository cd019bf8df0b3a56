#!/usr/bin/env ruby
# frozen_string_literal: true

# The upstream stub for the arena's /network-io endpoints: a tiny HTTP/1.1
# server that waits --delay seconds and answers a fixed HTML page of exactly
# --bytes bytes. Standalone (stdlib only) so rackbench can spawn it beside any
# server; loading the file (tests) defines the class without running it.
#
#   ruby upstream.rb --port PORT [--delay SECONDS] [--bytes N]
#
# Listens on 127.0.0.1 only, prints "upstream listening on 127.0.0.1:PORT"
# once ready, serves each connection on its own thread with keep-alive
# (HTTP/1.1 default, "Connection: close" honoured, HTTP/1.0 closes unless it
# asks for keep-alive), closes idle connections after IDLE_TIMEOUT, and exits
# with status 0 on TERM or INT. Limits: no chunked request bodies, no TLS.

require "io/wait"
require "optparse"
require "socket"

module Rackbench
  module Workload
    class Upstream
      HOST = "127.0.0.1"
      IDLE_TIMEOUT = 30
      MAX_LINE = 8192
      MAX_HEADERS = 100
      HEAD = "<!DOCTYPE html>\n<html><head><title>rackbench upstream</title></head><body>\n"
      TAIL = "</body></html>\n"
      WORDS = %w[alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima].freeze
      Request = Struct.new(:method, :keep_alive)

      # Options from argv; raises OptionParser::ParseError naming the problem.
      def self.options(argv)
        opts = { delay: 0.0, bytes: 1024 }
        parser = OptionParser.new do |o|
          o.banner = "usage: ruby upstream.rb --port PORT [--delay SECONDS] [--bytes N]"
          o.on("--port PORT", Integer, "TCP port on 127.0.0.1 (required)") { |v| opts[:port] = v }
          o.on("--delay SECONDS", Float, "sleep before each response (default 0)") { |v| opts[:delay] = v }
          o.on("--bytes N", Integer, "response body size in bytes (default 1024)") { |v| opts[:bytes] = v }
        end
        parser.parse!(argv.dup)
        validate(opts)
      end

      def self.validate(opts)
        raise OptionParser::MissingArgument, "--port" unless opts[:port]
        raise OptionParser::InvalidArgument, "--port must be 0..65535" unless (0..65_535).cover?(opts[:port])
        raise OptionParser::InvalidArgument, "--delay must be >= 0" if opts[:delay].negative?
        raise OptionParser::InvalidArgument, "--bytes must be >= 0" if opts[:bytes].negative?

        opts
      end

      # Deterministic ASCII HTML of exactly `bytes` bytes: numbered paragraphs
      # of words, the last one cut to fit before the closing tags (pages too
      # small for the frame are just its first `bytes` bytes).
      def self.body(bytes)
        frame = HEAD.bytesize + TAIL.bytesize
        return (HEAD + TAIL).byteslice(0, bytes) if bytes < frame

        text = +""
        index = 0
        while text.bytesize < bytes - frame
          text << paragraph(index)
          index += 1
        end
        HEAD + text.byteslice(0, bytes - frame) + TAIL
      end

      def self.paragraph(index)
        words = Array.new(8) { |i| WORDS[(index + (i * 5)) % WORDS.size] }
        format("<p>Paragraph %<n>05d: %<words>s.</p>\n", n: index + 1, words: words.join(" "))
      end

      def initialize(port:, delay:, bytes:)
        @port = port
        @delay = delay
        @body = self.class.body(bytes).freeze
      end

      def listen
        TCPServer.new(HOST, @port)
      end

      # Accepts until the server socket is closed (IOError) or the process exits.
      def accept_loop(server)
        loop { Thread.new(server.accept) { |socket| serve(socket) } }
      rescue IOError, Errno::EBADF
        nil
      end

      def serve(socket)
        while (request = read_request(socket))
          sleep(@delay) if @delay.positive?
          socket.write(response_head(request.keep_alive))
          socket.write(@body) unless request.method == "HEAD"
          break unless request.keep_alive
        end
      rescue IOError, SystemCallError
        nil
      ensure
        socket.close unless socket.closed?
      end

      private

      # nil on idle timeout, EOF or a malformed request (answered with 400).
      def read_request(socket)
        return nil unless socket.wait_readable(IDLE_TIMEOUT)

        line = socket.gets("\n", MAX_LINE) or return nil
        method, _target, version = line.split
        return bad_request(socket) unless version&.start_with?("HTTP/1.")

        headers = read_headers(socket) or return bad_request(socket)
        socket.read(Integer(headers["content-length"], 10)) if headers["content-length"]&.match?(/\A\d+\z/)
        Request.new(method, keep_alive?(version, headers))
      end

      def read_headers(socket)
        headers = {}
        MAX_HEADERS.times do
          line = socket.gets("\n", MAX_LINE) or return nil
          return headers if line.strip.empty?

          name, value = line.split(":", 2)
          headers[name.strip.downcase] = value.to_s.strip
        end
        nil
      end

      def keep_alive?(version, headers)
        connection = headers["connection"].to_s.downcase
        return false if headers.key?("transfer-encoding")

        version == "HTTP/1.0" ? connection == "keep-alive" : connection != "close"
      end

      def response_head(keep_alive)
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: #{@body.bytesize}\r\n" \
          "connection: #{keep_alive ? 'keep-alive' : 'close'}\r\n\r\n"
      end

      def bad_request(socket)
        socket.write("HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: 12\r\n" \
                     "connection: close\r\n\r\nbad request\n")
        nil
      end
    end
  end
end

if $PROGRAM_NAME == __FILE__
  begin
    options = Rackbench::Workload::Upstream.options(ARGV)
  rescue OptionParser::ParseError => e
    warn "Error: #{e.message}; usage: ruby upstream.rb --port PORT [--delay SECONDS] [--bytes N]"
    exit 2
  end
  %w[TERM INT].each { |signal| trap(signal) { exit } }
  upstream = Rackbench::Workload::Upstream.new(**options)
  begin
    server = upstream.listen
  rescue SystemCallError => e
    warn "Error: cannot listen on 127.0.0.1:#{options[:port]}: #{e.message}"
    exit 1
  end
  $stdout.puts "upstream listening on #{Rackbench::Workload::Upstream::HOST}:#{server.addr[1]}"
  $stdout.flush
  begin
    upstream.accept_loop(server)
  ensure
    server.close
  end
end
