# frozen_string_literal: true

# run --profile: loaded INSIDE each Ruby process of a server under test
# (RUBYOPT "-r THIS_FILE", set by Runtime::Flags beside in_server_probe.rb),
# never by rackbench itself. Core Ruby only until a profile starts, and it
# never raises into the server.
#
# Each process (the one that loads it, and every child of a fork, through
# Ruby 3.1's Process._fork hook) runs one watcher thread that reads
# DIR/control every POLL seconds (DIR: RACKBENCH_PROFILE_DIR). rackbench
# writes "start TOKEN" there before a trial's load and "stop TOKEN" after it
# (Sampling::Profiler). On start the watcher requires stackprof (then, not at
# load: a user's app has its bundle set up by then), notes GC.stat and starts
# StackProf in :cpu mode (a SIGPROF every INTERVAL_US of the process's CPU
# time, the stack of the thread holding the GVL recorded), then writes
# DIR/TOKEN/PID.on. On stop it stops StackProf and writes DIR/TOKEN/PID.prof
# (whole, then renamed): a first line of key=value figures (samples, missed
# samples, the GC.stat deltas: objects allocated, GC runs minor and major, GC
# time in ms), in a Rails app the SQL queries and their time (sql_count,
# sql_ms) with the requests Rails finished in the window (sql_requests: its
# process_action events), and the process's CPU time over the window (cpu_s), then one line per frame: self samples, total samples, the
# frame's name (Class#method, no line) and its absolute file, tab-separated,
# then one line per distinct stack (stackprof's raw samples, counted here):
# "s", its samples, and its frames root first as 0-based indexes of the
# frame lines, comma-separated. At most MAX_STACKS stacks, the most sampled;
# the samples of the rest on one last "s" line with no frame. Where SQL
# was counted, one "q" line per normalized statement (its literals and
# numbers as ?, a list of them as (?), spaces squeezed, 200 characters at
# most): "q", its queries, their ms and the statement, tab-separated, the
# MAX_STATEMENTS most run.
# A process that cannot profile writes DIR/TOKEN/PID.err with the reason.
#
# Limits: a sample is taken at Ruby's next safepoint after the signal
# (safepoint bias: time in a C call is charged to the Ruby frame that made
# it). The kernel fires ITIMER_PROF at most once per scheduler tick (4 ms
# on this machine's kernel, HZ=250: 0.18-0.25 samples per ms of cpu_s were
# measured, not 1), and stackprof drops a signal that reaches a thread
# outside Ruby: samples are read as shares of cpu_s (Stats::FrameTimes), not
# as INTERVAL_US each. The GC.stat deltas are the whole process's (the
# server's own threads and this watcher's few reads included), over the
# profiled window.
module RackbenchProfile
  DIR_VAR = "RACKBENCH_PROFILE_DIR"
  POLL = 0.02
  INTERVAL_US = 1000
  MAX_STACKS = 1000
  MAX_STATEMENTS = 50
  GC_KEYS = { "alloc" => :total_allocated_objects, "gc_count" => :count, "gc_minor" => :minor_gc_count,
              "gc_major" => :major_gc_count, "gc_time_ms" => :time }.freeze

  module_function

  def watch
    dir = ENV.fetch(DIR_VAR, nil)
    return if dir.nil? || dir.empty?

    Thread.new { run(dir) }.tap { |t| t.name = "rackbench-profile" if t.respond_to?(:name=) }
  rescue StandardError, ScriptError
    nil
  end

  def run(dir)
    current = nil
    seen = nil # the last token started (or failed): each is tried once
    loop do
      sleep POLL
      command, token = control(dir)
      if command == "start" && current.nil? && token != seen
        seen = token
        current = start(dir, token)
      elsif command == "stop" && current && current[:token] == token
        finish(current)
        current = nil
      end
    end
  rescue StandardError, ScriptError
    nil # a profile never breaks the server it watches
  end

  def control(dir)
    File.read(File.join(dir, "control")).split
  rescue SystemCallError
    []
  end

  def start(dir, token)
    require "stackprof"
    out = File.join(dir, token)
    gc = gc_now
    return fail_with(out, "StackProf is already running in this process (the app profiles itself?)") unless
      StackProf.start(mode: :cpu, interval: INTERVAL_US, raw: true)

    write(out, "on", "started\n")
    { token: token, out: out, gc: gc, t: Process.clock_gettime(Process::CLOCK_MONOTONIC), cpu: cpu_now, sql: sql_watch }
  rescue LoadError => e
    fail_with(File.join(dir, token), "stackprof cannot load in this process (#{e.message}): add gem \"stackprof\" to the app's Gemfile")
  end

  def fail_with(out, text)
    write(out, "err", "#{text}\n")
    nil
  end

  def finish(current)
    StackProf.stop
    results = StackProf.results || {}
    gc = gc_now
    head = { "pid" => Process.pid, "samples" => results[:samples].to_i, "missed" => results[:missed_samples].to_i,
             "interval_us" => INTERVAL_US,
             "wall_s" => (Process.clock_gettime(Process::CLOCK_MONOTONIC) - current[:t]).round(6),
             "cpu_s" => (cpu_now - current[:cpu]).round(6) }
    GC_KEYS.each_key { |k| head[k] = gc[k] && current[:gc][k] ? gc[k] - current[:gc][k] : nil }
    sql = sql_done(current[:sql])
    statements = sql.delete("statements") || []
    head.merge!(sql)
    lines = [head.map { |k, v| "#{k}=#{v}" }.join(" ")] + frames(results) + stacks(results) + statements
    write(current[:out], "prof", lines.join("\n") << "\n")
  end

  def frames(results)
    (results[:frames] || {}).each_value.map do |f|
      name = f[:name].to_s.tr("\t\n", "  ")
      [f[:samples].to_i, f[:total_samples].to_i, name, f[:file].to_s.tr("\t\n", "  ")].join("\t")
    end
  end

  # stackprof's raw samples (length, frame ids root first, count; repeated)
  # as one line per distinct stack, the most sampled MAX_STACKS of them.
  def stacks(results)
    raw = results[:raw] or return []
    index = (results[:frames] || {}).keys.each_with_index.to_h
    counts = Hash.new(0)
    i = 0
    while i < raw.size
      len = raw[i]
      counts[raw[i + 1, len].map { |id| index.fetch(id, -1) }] += raw[i + 1 + len].to_i
      i += len + 2
    end
    kept = counts.reject { |ids, _| ids.include?(-1) }.sort_by { |ids, n| [-n, ids] }
    lines = kept.first(MAX_STACKS).map { |ids, n| "s\t#{n}\t#{ids.join(',')}" }
    rest = counts.values.sum - kept.first(MAX_STACKS).sum { |_, n| n }
    rest.positive? ? lines << "s\t#{rest}\t" : lines
  end

  # Where Active Support is loaded (Rails): each query sent to the database
  # ("sql.active_record", its schema and cached ones left out) counted, with
  # its time, over the window; none otherwise.
  def sql_watch
    return nil unless defined?(::ActiveSupport::Notifications)

    counts = [0, 0.0, Hash.new { |h, k| h[k] = [0, 0.0] }, 0]
    lock = Mutex.new
    sub = ::ActiveSupport::Notifications.subscribe("sql.active_record") do |_name, started, finished, _id, payload|
      next if payload[:name] == "SCHEMA" || payload[:cached]

      ms = (finished - started).to_f * 1000
      statement = normalize(payload[:sql])
      lock.synchronize do
        counts[0] += 1
        counts[1] += ms
        counts[2][statement][0] += 1
        counts[2][statement][1] += ms
      end
    end
    # The requests Rails served in the window, counted where they end: the
    # queries' own denominator (the load generator's count leaves out the
    # requests in flight when it stops, about 1% of a 2 s trial at c = 2).
    done = ::ActiveSupport::Notifications.subscribe("process_action.action_controller") do |*|
      lock.synchronize { counts[3] += 1 }
    end
    [sub, counts, done]
  rescue StandardError
    nil
  end

  def sql_done(sql)
    return {} unless sql

    ::ActiveSupport::Notifications.unsubscribe(sql[0])
    ::ActiveSupport::Notifications.unsubscribe(sql[2]) if sql[2]
    top = sql[1][2].sort_by { |statement, (n, _)| [-n, statement] }.first(MAX_STATEMENTS)
    { "sql_count" => sql[1][0], "sql_ms" => sql[1][1].round(3), "sql_requests" => sql[1][3],
      "statements" => top.map { |statement, (n, ms)| "q\t#{n}\t#{ms.round(3)}\t#{statement}" } }
  rescue StandardError
    {}
  end

  # A statement's shape: string literals, numbers and lists of them as ?,
  # spaces squeezed (two queries that differ only in their values are one).
  def normalize(sql)
    sql.to_s.gsub(/'(?:[^']|'')*'/, "?").gsub(/\$\d+/, "?").gsub(/\b\d+(?:\.\d+)?\b/, "?")
       .gsub(/\(\s*\?(?:\s*,\s*\?)*\s*\)/, "(?)").tr("\t\n", "  ").squeeze(" ").strip[0, 200]
  end

  def cpu_now
    Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
  end

  def gc_now
    stat = GC.stat
    GC_KEYS.transform_values { |key| stat[key] }
  end

  def write(out, ext, text)
    begin
      Dir.mkdir(out) # rackbench makes it first; a race between workers is harmless
    rescue Errno::EEXIST
      nil
    end
    path = File.join(out, "#{Process.pid}.#{ext}")
    tmp = "#{path}.tmp"
    File.open(tmp, File::WRONLY | File::CREAT | File::TRUNC | File::NOFOLLOW, 0o644) { |f| f.write(text) }
    File.rename(tmp, path)
  rescue SystemCallError
    nil
  end

  # Prepended to Process's singleton class: a watcher in the child of every fork.
  module ForkHook
    def _fork
      pid = super
      RackbenchProfile.watch if pid.zero?
      pid
    end
  end
end

RackbenchProfile.watch
Process.singleton_class.prepend(RackbenchProfile::ForkHook) if Process.respond_to?(:_fork)
