-- rackbench's closed-loop script for load from other hosts (--load-host):
-- report.lua's RACKBENCH_RESULT line, then the latency histogram
-- (histogram_export.lua says how) so that rackbench adds the hosts'
-- histograms and takes percentiles from the sum.

local here = debug.getinfo(1, "S").source:sub(2):match("(.*/)") or "./"
dofile(here .. "report.lua")
dofile(here .. "histogram_export.lua")
