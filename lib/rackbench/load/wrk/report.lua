-- rackbench's wrk report: prints one machine-readable line when the run ends,
--
--   RACKBENCH_RESULT {"requests":N,"duration_us":N,"bytes":N,"errors":{...},"latency_us":{...}}
--
-- so Rackbench::Load::WrkOutput never scrapes wrk's screen text.
--
-- Only done() is defined: with no request()/response() hooks wrk sends one
-- pre-built request and skips header/body parsing, so the script costs
-- nothing per request.
--
-- What wrk 4.1 hands to done() (units: microseconds):
-- - latency is wrk's own histogram (one bucket per microsecond, up to the
--   --timeout), not an HdrHistogram. A sample is the time from writing a
--   request on a keep-alive connection to reading its whole response. A
--   response slower than --timeout is not recorded; it counts as a timeout.
-- - before done(), wrk adds synthetic samples for responses slower than twice
--   the mean per-connection interval (its partial coordinated-omission
--   correction), so the histogram may hold more samples than requests.
-- - latency:percentile(100) returns 0 (its rank is count + 1): use latency.max.
-- - with no recorded sample (no response, or every response slower than
--   --timeout) latency.min is 2^64 - 1, above latency.max, and the other
--   figures are 0: we write null for every latency figure instead.
-- - summary.errors.status counts responses with a status above 399.

local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
local J = dofile(here .. "json.lua")
local int, object = J.int, J.object

local function num(n)
  return string.format("%.3f", n)
end

local LATENCY_KEYS = { "min", "mean", "stdev", "max", "p50", "p75", "p90", "p99", "p99.9" }

local function latency_values(latency)
  return {
    int(latency.min), num(latency.mean), num(latency.stdev), int(latency.max),
    int(latency:percentile(50)), int(latency:percentile(75)), int(latency:percentile(90)),
    int(latency:percentile(99)), int(latency:percentile(99.9)),
  }
end

local function latency_json(latency)
  local recorded = latency.min <= latency.max
  local values = recorded and latency_values(latency) or {}
  local fields = {}
  for i, key in ipairs(LATENCY_KEYS) do
    fields[i] = { key, values[i] or "null" }
  end
  return object(fields)
end

function done(summary, latency, requests)
  io.write("RACKBENCH_RESULT ", object({
    { "requests", int(summary.requests) }, { "duration_us", int(summary.duration) },
    { "bytes", int(summary.bytes) }, { "errors", J.errors(summary.errors) },
    { "latency_us", latency_json(latency) },
  }), "\n")
end
