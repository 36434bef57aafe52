-- Checks a token for a hold and, only if it may hold, remembers the event it holds in, so
-- a later expiry change reaches that event (retime-hold-token-2.lua). A refused hold
-- writes nothing: an unknown, expired or foreign token leaves no trace.
--
-- KEYS[1]  the token's hash, KEYS[2] the set of events it held in (src/inventory/holdTokenStore.ts)
-- ARGV     the caller's workspace id, now (ms epoch), the event as `<tag>:<eventId>`,
--          how long (ms) the set is kept
-- Returns  the token's expiry (ms epoch), or 0 when the token is unknown, of another
--          workspace, or expired

local fields = redis.call('HMGET', KEYS[1], 'workspaceId', 'expiresAt')
local expiresAt = tonumber(fields[2]) or 0
if fields[1] ~= ARGV[1] or expiresAt <= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return expiresAt
