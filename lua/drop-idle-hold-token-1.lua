-- Whether a hold token still holds something in an event, dropping its entry there when it
-- holds nothing (an expiry change writes the entry of every event the token ever held in,
-- holding or not). Run by the hold expiry jobs before they drop a token's job
-- (src/jobs/holdExpiry.ts), one event at a time: the entry and the check are one step, so
-- a hold made meanwhile is never dropped.
--
-- KEYS[1]  the event's holdTokens hash (token -> expiry, then the labels it holds here)
-- ARGV[1]  the token
-- Returns  1 when the token holds something in the event, else 0

--#include constants.lua
--#include objectStates.lua

local entry = redis.call('HGET', KEYS[1], ARGV[1])
if not entry then return 0 end
if tokenEntryLabelsAt(entry) then return 1 end
redis.call('HDEL', KEYS[1], ARGV[1])
return 0
