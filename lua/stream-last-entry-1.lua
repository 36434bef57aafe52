-- The number of the last entry ever added to an event's history stream, 0 if none (the
-- status stream's snapshot: src/inventory/eventObjectStore.ts, readWithPosition). A script
-- rather than a plain XINFO: ioredis knows no key in XINFO, so on a cluster it would neither
-- prefix nor route it; a script's KEYS it does.
--
-- KEYS[1]  the history stream
-- Returns  the entry number

--#include streamLastEntry.lua

return streamLastEntry(KEYS[1])
