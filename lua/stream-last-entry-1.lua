-- The number of the last entry ever added to an event's history stream, 0 if it has none:
-- after the drain trimmed every stored entry the stream is empty, and only its
-- last-generated-id tells how far it went (docs/status-stream.md, "Across processes").
-- A script rather than a plain XINFO: ioredis knows no key in XINFO, so on a cluster it
-- would neither prefix nor route it; a script's KEYS it does.
--
-- KEYS[1]  the history stream
-- Returns  the entry number (ids are 0-<n>, lua/includes/history.lua)

if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local info = redis.call('XINFO', 'STREAM', KEYS[1])
for i = 1, #info, 2 do
  if info[i] == 'last-generated-id' then return tonumber(string.match(info[i + 1], '^0%-(%d+)$')) or 0 end
end
return 0
