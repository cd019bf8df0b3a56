-- rackbench's closed-loop script for a weighted scenario: report.lua's one
-- machine-readable line in done(), plus a request() that picks each
-- request's path at random by weight. Arguments: path weight path weight ...
--
-- Defining request() makes wrk build every request in Lua (a little CPU per
-- request, measured in the trial's client CPU); plain endpoints keep using
-- report.lua alone.

local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "report.lua")

local reqs, cum, total = {}, {}, 0

function init(args)
  for i = 1, #args - 1, 2 do
    total = total + tonumber(args[i + 1])
    reqs[#reqs + 1] = wrk.format(nil, args[i])
    cum[#cum + 1] = total
  end
  math.randomseed(os.time() + tonumber(tostring(reqs):match("0x(%x+)") or "0", 16) % 100000)
end

function request()
  if total == 0 then return wrk.format() end -- wrk's own count call before init
  local r = math.random() * total
  for i = 1, #cum do
    if r < cum[i] then return reqs[i] end
  end
  return reqs[#reqs]
end
