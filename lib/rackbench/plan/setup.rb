# frozen_string_literal: true

require_relative "../error"
require_relative "../suggest"
require_relative "../server"
require_relative "../server/front"
require_relative "jruby_setup"

module Rackbench
  # One server configuration to benchmark, named as the seed studies write it:
  #
  #   "puma x4:5"        4 workers x 5 threads (cluster mode, preloaded)
  #   "puma x1:16"       Puma in single mode: one process, 16 threads
  #   "unicorn x8"       8 worker processes
  #   "thin"             one Thin process (event loop)
  #   "passenger x2"     Passenger Standalone, 2 application processes
  #   "falcon x2"        Falcon, 2 forked processes (fibers, no threads)
  #   "pitchfork x4"     Pitchfork, 4 worker processes
  #
  # Trailing words: "nopreload" (Puma/Unicorn/Passenger/Falcon: load the app in
  # each worker instead of once in the master); "behind nginx" (nginx as a
  # reverse proxy in front, as the seed studies deployed Thin and Unicorn);
  # "behind thruster" (Thruster, as Rails 8's Dockerfile runs it in front of Puma);
  # "on yjit" / "on mri" (the runtime: MRI, or MRI with YJIT turned on);
  # "on jruby" (Puma in one process on JRuby, Runtime::Jruby), optionally with
  # a heap limit "-Xmx512m" (the JVM's default is a quarter of RAM). A word
  # "#NAME" only names it: "puma x2:5 #a" and "puma x2:5 #b" are one
  # configuration under two labels (an A/A test of the decisions).
  #
  # Any other word is the server's own (its adapter's setup_word; options
  # holds what it read): "puma x2:5 fibers" (fiber_per_request), "puma x2:5
  # io:4" (max_io_threads), "puma auto:5" (workers :auto), "itsi x2 fibers"
  # (its fiber scheduler).
  # ref: with run --ref, the commit of the app this setup serves
  # ({"name", "sha"}; Workload::GitRefs), nil otherwise.
  Setup = Struct.new(:label, :server, :workers, :threads, :preload, :front, :runtime, :heap, :options, :ref, keyword_init: true) do
    def to_h
      super.transform_keys(&:to_s).tap { |h| h.delete("ref") if h["ref"].nil? }
    end

    # A server word's value ("fibers" => true, "io" => 4), nil when not given.
    def option(key)
      (options || {})[key]
    end

    # Requests the setup can serve at once (processes x threads).
    def capacity
      workers * threads
    end
  end

  class Setup
    MAX_WORKERS = 256
    MAX_THREADS = 1024
    FORMAT = '"SERVER [xWORKERS[:THREADS]] [nopreload] [behind nginx]", e.g. "puma x2:5", "unicorn x4", ' \
             '"thin behind nginx", "passenger x2"'

    def self.parse(text)
      words = text.to_s.strip.split(/\s+/)
      raise UsageError, "empty setup name; write #{FORMAT}" if words.empty?

      server = words.shift.downcase
      # What the server accepts, from its adapter: threads nil means one
      # thread per process; only_one_process? means exactly one process.
      spec = Server::ADAPTERS[server] || raise(UsageError, unknown_server(server, text))
      workers = 1
      threads = spec.threads || 1
      preload = true
      front = nil
      runtime = "mri"
      options = {}
      heap = JrubySetup.take_heap!(words, text)
      words.reject! { |w| w.match?(/\A#[\w.-]+\z/) } # name tags: the same setup under two names (an A/A test)
      2.times do
        case words.last(2).map(&:downcase)
        in ["behind", proxy] then front = front!(proxy, text)
        in ["on", rt] then runtime = runtime!(rt, text)
        else break
        end
        words.pop(2)
      end
      words.each do |word|
        case word
        when /\Ax(\d+)(?::(\d+))?\z/i
          workers = Integer(Regexp.last_match(1), 10)
          threads = Integer(Regexp.last_match(2), 10) if Regexp.last_match(2)
          check_counts!(text, server, spec, workers, Regexp.last_match(2) && threads)
        when "nopreload" then preload = false
        when "preload" then preload = true
        else
          taken = spec.setup_word(word.downcase) or raise UsageError, unreadable(text, word, server, spec)
          counts = taken.slice(:workers, :threads)
          workers = counts.fetch(:workers, workers)
          threads = counts.fetch(:threads, threads)
          check_counts!(text, server, spec, workers, counts[:threads]) if counts.any?
          options.merge!(taken.except(:workers, :threads))
        end
      end
      JrubySetup.check!(text, server, workers, runtime, heap, front)
      spec.check_words!(text, workers: workers, threads: threads, options: options) unless options.empty?
      new(label: text.strip.squeeze(" "), server: server, workers: workers, threads: threads, preload: preload,
          front: front, runtime: runtime, heap: heap, options: options.freeze)
    end

    # A word neither Setup nor the server reads: the server's own words named.
    def self.unreadable(text, word, server, spec)
      own = spec.setup_words
      also = own.empty? ? "" : "; #{server} also takes #{own.join(', ')}"
      "setup #{text.inspect}: cannot read #{word.inspect}; write #{FORMAT}#{also}"
    end

    RUNTIMES = %w[mri yjit jruby].freeze

    def self.runtime!(word, text)
      return word if RUNTIMES.include?(word)

      raise UsageError, "setup #{text.inspect}: unknown runtime #{word.inspect}#{Suggest.did_you_mean(word, RUNTIMES)}; " \
                        "accepted runtimes: #{RUNTIMES.join(', ')}"
    end

    def self.front!(word, text)
      return word if Server::Front.names.include?(word)

      raise UsageError, "setup #{text.inspect}: cannot put #{word.inspect} in front#{Suggest.did_you_mean(word, Server::Front.names)}; " \
                        "accepted: #{Server::Front.names.map { |n| "behind #{n}" }.join(', ')}"
    end

    def self.unknown_server(server, text)
      hint = Suggest.did_you_mean(server, Server.keys)
      "unknown server #{server.inspect} in setup #{text.inspect}#{hint}; accepted servers: #{Server.keys.join(', ')}"
    end

    def self.check_counts!(text, server, spec, workers, threads)
      if workers < 1 || workers > MAX_WORKERS
        raise UsageError, "setup #{text.inspect}: workers must be 1..#{MAX_WORKERS} (got #{workers}); " \
                          "for one process write \"#{server} x1#{spec.threads ? ':5' : ''}\""
      end
      if spec.only_one_process? && workers != 1
        raise UsageError, "setup #{text.inspect}: #{server} runs one process; write \"#{server}\" and add setups for more"
      end
      return if threads.nil?

      unless spec.threads
        raise UsageError, "setup #{text.inspect}: #{server} is single-threaded per process; write \"#{server} x#{workers}\""
      end
      return if threads.between?(1, MAX_THREADS)

      raise UsageError, "setup #{text.inspect}: threads must be 1..#{MAX_THREADS} (got #{threads})"
    end
    private_class_method :unknown_server, :check_counts!, :runtime!, :unreadable
  end
end
