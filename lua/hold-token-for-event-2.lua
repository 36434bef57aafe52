-- Checks a token for a hold and, only if it may hold, remembers the event it holds in
-- (includes/holdTokenRecord.lua says how).
--
-- KEYS[1]  the token's hash, KEYS[2] the set of events it held in (src/inventory/holdTokenKeys.ts)
-- ARGV     the caller's workspace id, now (ms epoch), the event as `<tag>:<eventId>`,
--          how long (ms) the set is kept
-- Returns  the token's expiry (ms epoch), or 0 when the token is unknown, of another
--          workspace, or expired

--#include holdTokenRecord.lua

return holdTokenForEvent(KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4])
