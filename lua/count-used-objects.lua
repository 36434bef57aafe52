-- The history drain's count of the objects an event used in a month (billing; docs/history.md,
-- "Used objects"): the labels of the history entries marked as used, added to the month's
-- bucket keys and counted, in one step so that a batch drained twice (a crash between
-- counting and trimming) adds nothing the second time.
--
-- KEYS[1]  the event's used-objects count key of the month (src/inventory/eventKeys.ts, usedObjectsKey)
-- KEYS[2..] the bucket keys of the labels below
-- ARGV[1]  the event's number of bucket keys (stored as `b` with the first use)
-- ARGV[2..] per bucket key, in KEYS order: its labels joined by RS (one argument per key
--          rather than one per label: fewer for the server to build and send)
-- Returns  1 when this call made the event's first use of the month, else 0

--#include usedObjects.lua

local RS = '\30'
local buckets = {}
for i = 2, #KEYS do
  local labels = {}
  local joined = ARGV[i]
  local at = 1
  while true do
    local stop = string.find(joined, RS, at, true)
    labels[#labels + 1] = string.sub(joined, at, (stop or #joined + 1) - 1)
    if not stop then break end
    at = stop + 1
  end
  buckets[#buckets + 1] = { i, labels }
end
return addUsedObjects(KEYS[1], buckets, ARGV[1]) and 1 or 0
