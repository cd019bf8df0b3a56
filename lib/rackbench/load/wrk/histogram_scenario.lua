-- rackbench's closed-loop script for a weighted scenario loaded from other
-- hosts: scenario.lua (paths picked by weight, report.lua's line), then the
-- latency histogram (histogram_export.lua). Arguments: path weight ...

local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "scenario.lua")
dofile(here .. "histogram_export.lua")
