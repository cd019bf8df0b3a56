-- Shared by histogram_report.lua (one URL) and histogram_scenario.lua (a
-- weighted scenario, scenario.lua's request()): wraps the done() defined
-- before it so that, after its RACKBENCH_RESULT line, it prints
--
--   RACKBENCH_HISTOGRAM {"unit":"ns","latency":{"INDEX":COUNT,...}}
--
-- Method: wrk 4.1 keeps latency in 1 µs buckets; `#latency` is the number
-- of non-empty buckets and latency(i) returns the i-th one's value (µs) and
-- count. Each is re-bucketed into histogram.lua's log-linear layout (the
-- open-loop script's, 512 sub-buckets per power of two, midpoint relative
-- error <= 0.1%), so both loops export the same histogram, which rackbench
-- adds up across load hosts (Rackbench::Load::HistogramMerge). The counts
-- include wrk's synthetic coordinated-omission samples, as its own
-- percentiles do. Only done() is touched: no cost per request.

local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
local H = dofile(here .. "histogram.lua")
local J = dofile(here .. "json.lua")
local inner_done = done

function done(summary, latency, requests)
  inner_done(summary, latency, requests)
  local counts = {}
  if latency.min <= latency.max then
    for i = 1, #latency do
      local us, count = latency(i)
      local b = H.index(us * 1000)
      counts[b] = (counts[b] or 0) + count
    end
  end
  io.write('RACKBENCH_HISTOGRAM {"unit":"ns","latency":', J.sparse(counts, H.BUCKETS), "}\n")
end
