-- rackbench's open-loop (constant-rate) wrk script, for Debian's wrk 4.1
-- (LuaJIT). Run as
--
--   wrk -t N -c N -d RUN_S --timeout T -s open_loop.lua URL RATE N DURATION_S RUN_S
--
-- and it prints one machine-readable line when the run ends:
--
--   RACKBENCH_OPEN {"target_rate":R,"planned":N,...,"latency_us":{...},"service_us":{...}}
--
-- read by Rackbench::Load::WrkOpenOutput.
--
-- Method (wrk2's idea, done with stock wrk's Lua hooks):
-- - One connection per wrk thread (-t N -c N, required), so each Lua state
--   times one connection. Connection i sends on its own schedule
--   T_k = go + i/R + k*N/R: together the N connections offer R requests a
--   second, evenly staggered, from a common start `go`.
-- - Start gate: wrk creates its threads one by one (1-3 ms each; 0.6 s for
--   200), and each starts sending as soon as it is connected. So that the
--   offered rate does not ramp up over that time, every thread waits in its
--   first delay() (poll() on a pipe, blocking only its own connection) until
--   the main Lua state has set up the last thread; it then writes
--   go = now + GATE_LEAD_S into memory the threads share and one byte into
--   the pipe, and every schedule starts at go. (Thread 0's init() stores N
--   there first, which is how the main state knows which thread is last.)
-- - delay() returns the whole milliseconds until the next planned send (0
--   when less than 1 ms remains); request() reads the actual send time.
--   wrk's timers have 1 ms resolution, so a send can go out up to ~1 ms
--   early or late.
-- - response() records two figures:
--     latency = now - planned send time: service time plus the time the
--               request waited because its connection was still busy at its
--               planned time. This is the figure without coordinated
--               omission: a server that stalls is charged for every request
--               that would have arrived during the stall. (A send that went
--               out early is counted from its actual send time instead, so
--               latency is never below service time.)
--     service = now - actual send time: what closed-loop tools report.
-- - Clock: CLOCK_MONOTONIC via LuaJIT's FFI (clock_gettime), in seconds as
--   doubles (sub-nanosecond resolution for any realistic uptime).
-- - Histograms: histogram.lua, log-linear, 512 sub-buckets per power of two,
--   values reported at bucket midpoints: relative error <= 0.1% (for values
--   of 512 ns or more). Exact min, max, sum and sum of squares are kept too.
--   wrk's own latency object is NOT used: with paced requests wrk 4 applies
--   its own coordinated-omission correction on top, which double-counts.
-- - Each connection plans its share of round(R * DURATION) sends (exactly
--   R*DURATION in total), from its first slot at or after go (and after it
--   connected). RUN_S (wrk's -d) leaves time after the last planned send for
--   answers to arrive; no request is sent after a connection's last
--   planned one.
-- - Requests still in flight when wrk stops count as lower bounds
--   (latency >= stop - planned send, service >= stop - actual send), and so
--   do planned sends that never went out because their connection was busy
--   to the end (latency >= stop - planned send). stop is a time every thread
--   was still reading at: the last setup() call plus RUN_S (wrk starts its
--   run clock after the last setup and stops RUN_S later).
-- - Schedule slip: for sends whose connection was free at the planned time,
--   how late they went out (the client's own lag; an early send counts as 0
--   and in "early"); sends that waited for a busy connection are counted in
--   "queued" instead.
-- - Responses with an error status count as answered (wrk counts them in
--   errors.status too); wrk's --timeout only adds to errors.timeout here.
--
-- Merging threads: wrk threads are separate Lua states, and thread:get()
-- copies numbers and strings safely but not tables: its table copy pops one
-- value too many from the thread's stack, and in our test wrk 4.1 died with
-- SIGSEGV after a few such copies. So each thread keeps its counts in
-- memory from calloc() and publishes the address as a number (exact in a
-- double: user-space addresses are below 2^47); after wrk has joined the
-- threads, done() (main Lua state) reads every thread's counts through the
-- FFI and adds them up, then adds the lower bounds. Scalars (counts, sums,
-- extremes) come through thread:get() as numbers.

local ffi = require("ffi")
local here = (debug.getinfo(1, "S").source:match("^@(.*/)")) or "./"
local H = dofile(here .. "histogram.lua")
local J = dofile(here .. "json.lua")

ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } rackbench_timespec;
int clock_gettime(int clock_id, rackbench_timespec *tp);
void *calloc(size_t nmemb, size_t size);
int pipe(int fds[2]);
long write(int fd, const void *buf, size_t count);
struct rackbench_pollfd { int fd; short events; short revents; };
int poll(struct rackbench_pollfd *fds, unsigned long nfds, int timeout);
typedef struct { double go; double conns; } rackbench_gate;
]]

local CLOCK_MONOTONIC = 1
local POLLIN = 1
local IDLE_MS = 1e9      -- after its last planned send a connection waits for wrk to stop
local SLIP_OVER_S = 0.010
local GATE_LEAD_S = 0.02 -- time for the last thread to start and connect
local GATE_WAIT_MS = 30000
local ts = ffi.new("rackbench_timespec")

local function now()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

-- An exact-extremes summary beside a histogram: count, min, max, sum, sumsq (ns).
local function new_stats()
  return { n = 0, min = nil, max = 0, sum = 0, sumsq = 0 }
end

local function add_stats(s, ns)
  s.n = s.n + 1
  if not s.min or ns < s.min then s.min = ns end
  if ns > s.max then s.max = ns end
  s.sum = s.sum + ns
  s.sumsq = s.sumsq + ns * ns
end

local function counts_array()
  local p = ffi.cast("uint32_t *", ffi.C.calloc(H.BUCKETS, 4))
  assert(p ~= nil, "calloc failed")
  return p, tonumber(ffi.cast("uintptr_t", p))
end

------------------------------------------------------------------------------
-- Main Lua state: setup() per thread, done() at the end.

-- Locals of the main state (the threads get globals through thread:set).
-- thread:get is only used in done(), after wrk has joined the threads: a
-- running thread's Lua state must not be touched from another OS thread.
local threads = {}
local main_origin, last_setup, main_gate, gate_fds

function setup(thread)
  local t = now()
  if not main_gate then
    main_origin = t
    main_gate = ffi.new("rackbench_gate[1]") -- kept alive by this upvalue until wrk exits
    gate_fds = ffi.new("int[2]")
    assert(ffi.C.pipe(gate_fds) == 0, "pipe() failed")
  end
  last_setup = t
  threads[#threads + 1] = thread
  thread:set("conn_index", #threads - 1)
  thread:set("origin", main_origin)
  thread:set("gate_addr", tonumber(ffi.cast("uintptr_t", main_gate)))
  thread:set("gate_fd", gate_fds[0])
  if #threads == main_gate[0].conns then -- the last thread (N >= 2): open the gate
    main_gate[0].go = now() + GATE_LEAD_S
    ffi.C.write(gate_fds[1], "g", 1)
  end
end

------------------------------------------------------------------------------
-- Thread Lua states: one connection each.

function init(args)
  rate = tonumber(args[1])
  conns = tonumber(args[2])
  duration = tonumber(args[3])
  run_s = tonumber(args[4])
  period = conns / rate
  gate_ptr = ffi.cast("rackbench_gate *", gate_addr)
  if conn_index == 0 then gate_ptr.conns = conns end
  local total = math.floor(rate * duration + 0.5)
  planned = math.max(0, math.ceil((total - conn_index) / conns))
  lat_counts, lat_addr = counts_array()
  svc_counts, svc_addr = counts_array()
  lat, svc = new_stats(), new_stats()
  req = wrk.format()
  -- a weighted scenario: path weight path weight ... after the four numbers
  reqs, cum, total_w = {}, {}, 0
  for i = 5, #args - 1, 2 do
    total_w = total_w + tonumber(args[i + 1])
    reqs[#reqs + 1] = wrk.format(nil, args[i])
    cum[#cum + 1] = total_w
  end
  math.randomseed(conn_index * 7919 + 1)
  first_slot, free_since, inflight, sent_at = nil, nil, nil, nil
  sent, completed, retries, queued, extra = 0, 0, 0, 0, 0
  tail_from, tail_to, in_tail = nil, nil, 0 -- the window's second half: answers counted there
  slip_n, slip_sum, slip_max, slip_over, early = 0, 0, 0, 0, 0
end

-- Blocks this thread (and only its connection) until the main state opens
-- the gate; returns the common start. A single connection needs no gate.
local function wait_for_gate()
  if conns == 1 then return origin end
  local fds = ffi.new("struct rackbench_pollfd[1]")
  fds[0].fd, fds[0].events = gate_fd, POLLIN
  local deadline = now() + GATE_WAIT_MS / 1000
  while gate_ptr.go == 0 and now() < deadline do
    ffi.C.poll(fds, 1, 100)
  end
  return gate_ptr.go > 0 and gate_ptr.go or now() -- after GATE_WAIT_MS: start alone
end

function delay()
  local t = now()
  if not first_slot then -- connected: start at this connection's first slot from go
    local go = wait_for_gate()
    tail_from, tail_to = go + duration / 2, go + duration
    t = now()
    local phase = go + conn_index / rate
    first_slot = phase + math.max(0, math.ceil((t - phase) / period)) * period
    free_since = t
  end
  if sent >= planned then return IDLE_MS end
  local wait_ms = math.floor((first_slot + sent * period - t) * 1000)
  return wait_ms > 0 and wait_ms or 0
end

-- The request of a send: the only path, or one of a scenario's by weight.
function pick()
  if total_w == 0 then return req end
  local r = math.random() * total_w
  for i = 1, #cum do
    if r < cum[i] then return reqs[i] end
  end
  return reqs[#reqs]
end

function request()
  -- wrk calls request() once in thread 0 before connecting, to count the
  -- requests it returns: not a send.
  if not first_slot then return req end
  local t = now()
  if inflight then -- wrk reconnected after an error mid-request: same slot
    retries = retries + 1
    sent_at = t
    return last_req or req
  end
  if sent >= planned then -- not expected (IDLE_MS); never timed
    extra = extra + 1
    return req
  end
  local due = first_slot + sent * period
  sent = sent + 1
  inflight, sent_at = due, t
  if free_since <= due then
    local slip = t - due
    if slip < 0 then
      early = early + 1
      slip = 0
    end
    slip_n = slip_n + 1
    slip_sum = slip_sum + slip
    if slip > slip_max then slip_max = slip end
    if slip > SLIP_OVER_S then slip_over = slip_over + 1 end
  else
    queued = queued + 1
  end
  last_req = pick()
  return last_req
end

function response(status, headers, body)
  local t = now()
  if not inflight then return end
  local from = inflight < sent_at and inflight or sent_at
  local lat_ns, svc_ns = (t - from) * 1e9, (t - sent_at) * 1e9
  local i = H.index(lat_ns)
  lat_counts[i] = lat_counts[i] + 1
  i = H.index(svc_ns)
  svc_counts[i] = svc_counts[i] + 1
  add_stats(lat, lat_ns)
  add_stats(svc, svc_ns)
  completed = completed + 1
  if tail_from and t >= tail_from and t <= tail_to then in_tail = in_tail + 1 end
  inflight, free_since = nil, t
  -- published for done(): thread:get copies numbers, not tables
  lat_n, lat_min, lat_max, lat_sum, lat_sumsq = lat.n, lat.min, lat.max, lat.sum, lat.sumsq
  svc_n, svc_min, svc_max, svc_sum, svc_sumsq = svc.n, svc.min, svc.max, svc.sum, svc.sumsq
end

------------------------------------------------------------------------------
-- done(): merge the threads and print the line.

local int, object = J.int, J.object

local function us(ns)
  return ns and string.format("%.3f", ns / 1000) or "null"
end

local function merged()
  return { counts = ffi.new("double[?]", H.BUCKETS), stats = new_stats() }
end

local function merge_thread(into, thread, prefix)
  local p = ffi.cast("uint32_t *", thread:get(prefix .. "_addr"))
  local c = into.counts
  for i = 0, H.BUCKETS - 1 do
    c[i] = c[i] + p[i]
  end
  local s, n = into.stats, thread:get(prefix .. "_n") or 0
  if n > 0 then
    local min = thread:get(prefix .. "_min")
    s.n = s.n + n
    if not s.min or min < s.min then s.min = min end
    s.max = math.max(s.max, thread:get(prefix .. "_max"))
    s.sum = s.sum + thread:get(prefix .. "_sum")
    s.sumsq = s.sumsq + thread:get(prefix .. "_sumsq")
  end
end

local function record_bound(into, ns)
  if ns < 0 then ns = 0 end
  local i = H.index(ns)
  into.counts[i] = into.counts[i] + 1
  add_stats(into.stats, ns)
end

local PERCENTILES = { { "p50", 50 }, { "p75", 75 }, { "p90", 90 }, { "p99", 99 }, { "p99.9", 99.9 },
                      { "p99.99", 99.99 } }

local function summary_json(h)
  local s = h.stats
  if s.n == 0 then
    local fields = { { "count", "0" }, { "min", "null" }, { "mean", "null" }, { "stdev", "null" }, { "max", "null" } }
    for _, p in ipairs(PERCENTILES) do fields[#fields + 1] = { p[1], "null" } end
    return object(fields)
  end
  local mean = s.sum / s.n
  local stdev = math.sqrt(math.max(0, s.sumsq / s.n - mean * mean))
  local fields = { { "count", int(s.n) }, { "min", us(s.min) }, { "mean", us(mean) }, { "stdev", us(stdev) },
                   { "max", us(s.max) } }
  for _, p in ipairs(PERCENTILES) do
    fields[#fields + 1] = { p[1], us(H.percentile(h.counts, s.n, p[2], s.min, s.max)) }
  end
  return object(fields)
end

function done(summary, latency, requests)
  local first = threads[1]
  local r, stop = first:get("rate"), last_setup + first:get("run_s")
  local lat_h, svc_h = merged(), merged()
  local t = { planned = 0, sent = 0, completed = 0, retries = 0, queued = 0, extra = 0, in_flight = 0,
              unsent = 0, slip_n = 0, slip_sum = 0, slip_max = 0, slip_over = 0, early = 0, in_tail = 0 }
  local ages = {} -- each in-flight request's age at stop (us): those over --timeout are timeouts wrk never counts
  for _, th in ipairs(threads) do
    merge_thread(lat_h, th, "lat")
    merge_thread(svc_h, th, "svc")
    for _, key in ipairs({ "planned", "sent", "completed", "retries", "queued", "extra", "slip_n",
                           "slip_sum", "slip_over", "early", "in_tail" }) do
      t[key] = t[key] + th:get(key)
    end
    t.slip_max = math.max(t.slip_max, th:get("slip_max"))
    local due = th:get("inflight")
    if due then -- counted like an answered request: from the earlier of planned and actual send
      local sent_at = th:get("sent_at")
      t.in_flight = t.in_flight + 1
      ages[#ages + 1] = int((stop - sent_at) * 1e6)
      record_bound(lat_h, (stop - math.min(due, sent_at)) * 1e9)
      record_bound(svc_h, (stop - sent_at) * 1e9)
    end
    local first_slot = th:get("first_slot")
                       or ((main_gate[0].go > 0 and main_gate[0].go or main_origin) + th:get("conn_index") / r)
    local period = th:get("period")
    for k = th:get("sent"), th:get("planned") - 1 do
      t.unsent = t.unsent + 1
      record_bound(lat_h, (stop - (first_slot + k * period)) * 1e9)
    end
  end
  local slip_mean = t.slip_n > 0 and t.slip_sum / t.slip_n or 0
  io.write("RACKBENCH_OPEN ", object({
    { "target_rate", string.format("%.6g", r) }, { "connections", int(#threads) },
    { "duration_us", int(first:get("duration") * 1e6) }, { "wrk_duration_us", int(summary.duration) },
    { "planned", int(t.planned) }, { "sent", int(t.sent) }, { "completed", int(t.completed) },
    { "in_flight", int(t.in_flight) }, { "in_flight_age_us", "[" .. table.concat(ages, ",") .. "]" },
    { "unsent", int(t.unsent) }, { "queued", int(t.queued) },
    { "retries", int(t.retries) }, { "extra", int(t.extra) }, { "answered_in_second_half", int(t.in_tail) },
    { "wrk_requests", int(summary.requests) }, { "bytes", int(summary.bytes) },
    { "errors", J.errors(summary.errors) },
    { "slip_us", object({ { "sends", int(t.slip_n) }, { "mean", us(slip_mean * 1e9) },
                          { "max", us(t.slip_max * 1e9) }, { "over_10ms", int(t.slip_over) },
                          { "early", int(t.early) } }) },
    { "latency_us", summary_json(lat_h) }, { "service_us", summary_json(svc_h) },
  }), "\n")
  -- The merged histograms, sparse (bucket index: count), so that load from
  -- several hosts can be added bucket by bucket (Load::HistogramMerge).
  io.write('RACKBENCH_HISTOGRAM {"unit":"ns","latency":', J.sparse(lat_h.counts, H.BUCKETS), ',"service":',
           J.sparse(svc_h.counts, H.BUCKETS), "}\n")
end
