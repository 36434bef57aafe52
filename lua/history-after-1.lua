-- A status-stream follower's poll of an event's history stream (src/inventory/historyFollower.ts),
-- in one round trip: the entries after a number, or, when there are none, how far the
-- stream went, so that entries the drain stored and trimmed before the follower read them
-- are noticed (and read from MongoDB).
--
-- KEYS[1]  the history stream
-- ARGV[1]  the number of the last entry the follower has
-- ARGV[2]  how many entries to return at most
-- Returns  {last, entries}: entries as XRANGE gives them (id, {field, value}), oldest first;
--          last is 0 when there are entries (their ids say where they start), else the
--          number of the last entry ever added

--#include streamLastEntry.lua

local entries = redis.call('XRANGE', KEYS[1], '0-' .. (tonumber(ARGV[1]) + 1), '+', 'COUNT', ARGV[2])
if #entries > 0 then return {0, entries} end
return {streamLastEntry(KEYS[1]), entries}
