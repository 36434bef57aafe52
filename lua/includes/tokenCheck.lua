-- A booking's hold token that the server sent unchecked (the mark TOKEN_UNCHECKED_MARK
-- before it, src/inventory/statusContract.ts) stands when the event has an unexpired entry
-- for it: only a hold with the token makes one, after the token's own record was checked
-- (its workspace, its expiry: hold-token-for-event-2.lua), and an expiry change of the token
-- moves the entry's expiry with it (retime-hold-token-2.lua). A checkout's booking finds the
-- entry its hold made, so the server need not read the token's record first (a round trip
-- to a key that, on a cluster, lives in another slot). When there is no such entry, the call
-- answers the signal HOLD_TOKEN_UNCHECKED having written nothing, and the server checks the
-- token itself and sends the call again with it marked checked (docs/performance.md,
-- "A checkout's booking checks its token in Redis").
-- Needs: KEYS, ARGV, now (run has set them).
--#include statusContract.lua
--#include constants.lua
--#include objectStates.lua

-- False when a plain call's token is unchecked and the event's entry does not vouch for it.
local function tokenStands()
  local arg = ARGV[ARG_TOKEN]
  if string.sub(arg, 1, #TOKEN_UNCHECKED_MARK) ~= TOKEN_UNCHECKED_MARK then return true end
  local value = redis.call('HGET', KEYS[EVENT_KEY_HOLD_TOKENS], string.sub(arg, #TOKEN_UNCHECKED_MARK + 1))
  return value ~= false and decodeTokenEntry(value).expiry > now
end
