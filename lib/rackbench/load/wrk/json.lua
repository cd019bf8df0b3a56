-- The JSON rackbench's wrk scripts print, written by hand (wrk's LuaJIT has
-- no JSON library). Loaded with dofile by report.lua, histogram_export.lua
-- and open_loop.lua, from the directory they stand in: wrk loads one script,
-- and that script loads its neighbours (all of wrk/ is copied to a load
-- host). Plain Lua, so it also runs under `luajit` in tests.
--
-- A value is written by its caller as JSON text; these write the shapes the
-- scripts share.

local J = {}

-- A count as a whole number: wrk's figures are doubles or 64-bit integers,
-- and "%.0f" writes either without an exponent.
function J.int(n)
  return string.format("%.0f", n)
end

-- { { key, json }, ... } -> {"key":json,...}, in the order given.
function J.object(pairs_list)
  local parts = {}
  for i, kv in ipairs(pairs_list) do
    parts[i] = '"' .. kv[1] .. '":' .. kv[2]
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- wrk's summary.errors, every kind (Rackbench::Load::Result::ERROR_KINDS).
function J.errors(e)
  return J.object({
    { "connect", J.int(e.connect) }, { "read", J.int(e.read) }, { "write", J.int(e.write) },
    { "status", J.int(e.status) }, { "timeout", J.int(e.timeout) },
  })
end

-- A histogram, sparse: {"INDEX":COUNT,...} for buckets 0 .. size - 1 in
-- order, empty ones left out. counts: a Lua table (nil where empty) or an
-- FFI array.
function J.sparse(counts, size)
  local parts = {}
  for i = 0, size - 1 do
    local c = counts[i]
    if c and c > 0 then parts[#parts + 1] = string.format('"%d":%.0f', i, c) end
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

return J
