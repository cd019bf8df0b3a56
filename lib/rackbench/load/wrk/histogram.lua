-- A log-linear latency histogram for rackbench's open-loop wrk script
-- (open_loop.lua), plain LuaJIT so it also runs under `luajit` in tests.
--
-- Values are nanoseconds (non-negative numbers, fractions allowed).
-- - Below 1,024 ns every whole nanosecond has its own bucket.
-- - From 1,024 ns up, each power of two [2^e, 2^(e+1)) is split into 2^9 =
--   512 equal sub-buckets (HdrHistogram's layout with 3 significant digits'
--   worth of sub-buckets): a bucket is 1/512 of its lower bound wide, and a
--   value is reported as its bucket's midpoint, so the relative error of any
--   reported value of 512 ns or more is at most 1/1024 (0.098%), well inside
--   the 0.2% rackbench promises.
-- - The last power of two held is [2^37, 2^38) ns (137-275 s); larger
--   values are counted in the last bucket (callers keep the exact max).
--
-- Counts live in a caller-owned array indexed 0..BUCKETS-1: a LuaJIT FFI
-- array (open_loop.lua uses calloc'd uint32_t, so wrk's main Lua state can
-- read a thread's counts by address) or a Lua table with 0-based keys.

local H = {}

H.SUB_BITS = 9
H.SUB = 2 ^ H.SUB_BITS            -- 512 sub-buckets per power of two
H.EXACT = 2 * H.SUB               -- 1024: values below have 1 ns buckets
H.MAX_EXP = 38                    -- values from 2^38 ns go to the last bucket
H.BUCKETS = H.EXACT + (H.MAX_EXP - 10) * H.SUB  -- 15,360 (60 KB as uint32_t)

local floor, frexp = math.floor, math.frexp

-- Bucket index of a value in ns.
function H.index(ns)
  if ns < H.EXACT then
    return ns > 0 and floor(ns) or 0
  end
  local m, e = frexp(ns) -- ns = m * 2^e, 0.5 <= m < 1: 2^(e-1) <= ns < 2^e
  if e > H.MAX_EXP then return H.BUCKETS - 1 end
  return H.EXACT + (e - 11) * H.SUB + floor((m * 2 - 1) * H.SUB)
end

-- Lower bound and width (ns) of bucket i.
function H.bounds(i)
  if i < H.EXACT then return i, 1 end
  local octave = floor((i - H.EXACT) / H.SUB)
  local sub = (i - H.EXACT) % H.SUB
  local base = 2 ^ (octave + 10)
  local width = base / H.SUB
  return base + sub * width, width
end

-- The value reported for bucket i: its midpoint.
function H.midpoint(i)
  local lower, width = H.bounds(i)
  return lower + width / 2
end

function H.record(counts, ns)
  local i = H.index(ns)
  counts[i] = (counts[i] or 0) + 1
end

-- Percentile p (0 < p <= 100) of `total` values held in counts, with
-- HdrHistogram's rank rule: the smallest value with at least
-- ceil(p/100 * total) values at or below it. Clamped to [min, max] (the
-- exact extremes the caller kept), so p100 is the exact max. nil when empty.
function H.percentile(counts, total, p, min, max)
  if total <= 0 then return nil end
  local rank = math.max(1, math.ceil(p / 100 * total - 1e-9))
  local seen = 0
  for i = 0, H.BUCKETS - 1 do
    seen = seen + (counts[i] or 0)
    if seen >= rank then
      local v = H.midpoint(i)
      if min and v < min then v = min end
      if max and v > max then v = max end
      return v
    end
  end
  return max
end

return H
