-- A plain call's hold token's entry in its event (event 1), read once per call: the check
-- below and the plain way (plainChanges.lua) both need it.
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
-- Needs: KEYS, ARGV, now, call (run has set them).
--#include statusContract.lua
--#include constants.lua
--#include objectStates.lua
--#include callState.lua

-- The entry of `token` in event 1 (objectStates.lua, decoded), or false when there is none;
-- kept in call.tokenEntry, so the call reads it once.
local function plainTokenEntryOf(token)
  local kept = call.tokenEntry
  if kept and kept.token == token then return kept.entry end
  local value = redis.call('HGET', KEYS[EVENT_KEY_HOLD_TOKENS], token)
  local entry = value and decodeTokenEntry(value) or false
  call.tokenEntry = { token = token, entry = entry }
  return entry
end

-- False when a plain call's token is unchecked and the event's entry does not vouch for it.
local function tokenStands()
  local arg = ARGV[ARG_TOKEN]
  if string.sub(arg, 1, #TOKEN_UNCHECKED_MARK) ~= TOKEN_UNCHECKED_MARK then return true end
  local entry = plainTokenEntryOf(string.sub(arg, #TOKEN_UNCHECKED_MARK + 1))
  return entry ~= false and entry.expiry > now
end
