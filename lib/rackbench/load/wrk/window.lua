-- rackbench's closed-loop script for a throughput window: report.lua's
-- RACKBENCH_RESULT line, plus one more line when the run ends,
--
--   RACKBENCH_COMPLETIONS [t1,t2,...]
--
-- the time of every response, in microseconds since the run started
-- (CLOCK_MONOTONIC, through LuaJIT's ffi), sorted. Load::CountWindow counts
-- throughput from them away from the trial's ends (see there for why).
--
-- Defining response() makes wrk hand every response's headers and body to
-- Lua: a cost per request, so the runner uses this script only where the
-- ends bias the count (responses slow against the trial's length, hence few).

local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "report.lua")
local report_done = done

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } rackbench_timespec;
  int clock_gettime(int clk_id, rackbench_timespec *tp);
]]
local CLOCK_MONOTONIC = 1
local ts = ffi.new("rackbench_timespec")

local function now_us()
  ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) * 1000000 + math.floor(tonumber(ts.tv_nsec) / 1000)
end

local threads = {}
local started_us = nil

-- Main state, once per thread, before any thread starts.
function setup(thread)
  started_us = started_us or now_us()
  threads[#threads + 1] = thread
end

-- Per thread (a global, so done() can read it with thread:get).
completions = {}

function response(status, headers, body)
  completions[#completions + 1] = now_us()
end

function done(summary, latency, requests)
  report_done(summary, latency, requests)
  local all = {}
  for _, thread in ipairs(threads) do
    local list = thread:get("completions") or {}
    for i = 1, #list do
      all[#all + 1] = list[i] - started_us
    end
  end
  table.sort(all)
  for i = 1, #all do all[i] = string.format("%.0f", all[i]) end
  io.write("RACKBENCH_COMPLETIONS [", table.concat(all, ","), "]\n")
end
