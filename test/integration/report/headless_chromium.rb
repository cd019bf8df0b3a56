# frozen_string_literal: true

require "cgi"
require "json"
require "rbconfig"
require "tmpdir"
require "rackbench/process_control/child"

module Rackbench
  # Opens a local page in headless Chromium (Debian package `chromium`, put
  # there by bin/setup) the way a test needs it: from an argument array, in its
  # own process group through ProcessControl::Child, bounded by a timeout, and
  # stopped and reaped in ensure. A fresh profile per launch; no network.
  # Chromium's stdout (the DOM for --dump-dom) goes to its own file through a
  # one-line Ruby exec trampoline, so its log lines on stderr (console messages
  # with --enable-logging=stderr) cannot interleave with it.
  class HeadlessChromium
    BINARIES = %w[chromium chromium-browser google-chrome].freeze
    FLAGS = %w[--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
               --disable-component-update --disable-sync --disable-breakpad --disable-crash-reporter
               --hide-scrollbars --enable-logging=stderr --v=0 --virtual-time-budget=5000].freeze
    TRAMPOLINE = "out = ARGV.shift; exec(*ARGV, out: [out, 'w'])"
    Result = Struct.new(:stdout, :log, keyword_init: true) do
      # Console messages the page produced ("INFO:CONSOLE:12] \"...\", source: ...").
      def console
        log.lines.grep(/:CONSOLE[:(]/).map(&:strip)
      end
    end

    def self.binary
      BINARIES.each do |name|
        ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).each do |dir|
          path = File.join(dir, name)
          return path if File.executable?(path)
        end
      end
      nil
    end

    def initialize(binary, workdir, timeout: 60)
      @binary = binary
      @workdir = workdir
      @timeout = timeout
      @launches = 0
    end

    def dump_dom(file)
      launch("--dump-dom", "file://#{File.expand_path(file)}")
    end

    PROBE_JS = File.join(__dir__, "canvas_probe.js")
    PROBE_PAGE = <<~HTML
      <!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="probe"></pre>
      <iframe id="report" src="%<src>s" style="width: 1280px; height: 4000px; border: 0"></iframe>
      <script>%<script>s</script></body></html>
    HTML

    # What each chart of a report drew, read from its canvas pixels (see
    # canvas_probe.js): { "report" => data-report, "errors" => ..., "charts" =>
    # { id => { "points", "canvas", "plot" => { "series" => { label => pixels,
    # left_y, right_y } } } } }.
    def charts_drawn(file)
      probe = File.join(@workdir, "probe-#{@launches + 1}.html")
      File.write(probe, format(PROBE_PAGE, src: CGI.escapeHTML("file://#{File.expand_path(file)}"), script: File.read(PROBE_JS)))
      result = launch("--allow-file-access-from-files", "--dump-dom", "file://#{probe}")
      json = result.stdout[%r{<pre id="probe">(.+?)</pre>}m, 1] or raise "the probe wrote nothing; Chromium's log:\n#{result.log[-2000..]}"
      JSON.parse(CGI.unescapeHTML(json)).merge("console" => result.console)
    end

    def screenshot(file, png, size: "1280,2000")
      launch("--screenshot=#{File.expand_path(png)}", "--window-size=#{size}", "file://#{File.expand_path(file)}")
    end

    private

    def launch(*args)
      @launches += 1
      profile = Dir.mktmpdir("profile-", @workdir)
      out = File.join(@workdir, "chromium-#{@launches}.out")
      log = File.join(@workdir, "chromium-#{@launches}.log")
      argv = [RbConfig.ruby, "-e", TRAMPOLINE, out, @binary, *FLAGS, "--user-data-dir=#{profile}", *args]
      child = ProcessControl::Child.spawn(argv, log_path: log)
      raise "Chromium did not finish within #{@timeout} s (#{args.first}); see #{log}" unless child.wait(@timeout)

      Result.new(stdout: File.exist?(out) ? File.read(out) : "", log: File.read(log))
    ensure
      child&.stop("TERM", timeout: 5)
    end
  end
end
