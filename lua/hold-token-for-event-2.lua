-- Reads what a hold needs of its token (owner and expiry) and remembers the event it holds
-- in, so a later expiry change reaches that event (retime-hold-token.lua). One call, batched
-- with the other script calls of its event-loop turn, where a MULTI was a write of its own.
--
-- KEYS[1]  the token's hash, KEYS[2] the set of events it held in (src/inventory/holdTokenStore.ts)
-- ARGV     the event as `<tag>:<eventId>`, how long (ms) the set is kept
-- Returns  {workspaceId, expiresAt}, each nil when the token is unknown

local fields = redis.call('HMGET', KEYS[1], 'workspaceId', 'expiresAt')
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return fields
