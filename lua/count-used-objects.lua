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
--#include constants.lua
--#include split.lua

local buckets = {}
for i = 2, #KEYS do buckets[#buckets + 1] = { i, split(ARGV[i], RS) } end
return addUsedObjects(KEYS[1], buckets, ARGV[1]) and 1 or 0
