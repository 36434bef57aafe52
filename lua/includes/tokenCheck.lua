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
-- "One Lua function call per status change").
-- Needs: KEYS, ARGV, now, call (run has set them).
--#include statusContract.lua
--#include constants.lua
--#include objectStates.lua
--#include callState.lua
--#include failures.lua
--#include holdTokenRecord.lua

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

-- A plain hold's token the server left to the function (TOKEN_TO_CHECK_MARK) is checked
-- against the token's record as hold-token-for-event-2.lua checks it (holdTokenRecord.lua:
-- of the caller's workspace and unexpired, then the event joins the token's events set),
-- and the call goes on as the server would have sent it after that check: the token marked
-- checked, its expiry given (call.checkedTokenExpiry tells the server). The token's keys are the call's TOKEN_KEYS, before the record key: on one Redis
-- only, where the server sends the hold at once instead of waiting for that call first.
local function holdTokenMayHold(token)
  local hold = ARGV[ARG_TOKEN_HOLD]
  local bar = string.find(hold, '|', 1, true)
  local expiresAt = holdTokenForEvent(KEYS[#KEYS - TOKEN_KEY_FROM_END_TOKEN], KEYS[#KEYS - TOKEN_KEY_FROM_END_TOKEN_EVENTS],
    string.sub(hold, 1, bar - 1), now, string.sub(hold, bar + 1), TOKEN_EVENTS_KEPT_MS)
  if expiresAt == 0 then return false end
  ARGV[ARG_TOKEN] = TOKEN_MARK .. token
  ARGV[ARG_TOKEN_EXPIRY] = tostring(expiresAt)
  call.checkedTokenExpiry = expiresAt
  return true
end

-- Whether a plain call's token check refused the call, its signal recorded (nothing written):
-- HOLD_TOKEN_UNCHECKED when a booking's unchecked token has no unexpired entry in the event
-- to vouch for it, HOLD_TOKEN_REFUSED when a hold's token may not hold.
local function tokenRefused()
  local arg = ARGV[ARG_TOKEN]
  local mark = string.sub(arg, 1, #TOKEN_MARK)
  if mark == TOKEN_UNCHECKED_MARK then
    local entry = plainTokenEntryOf(string.sub(arg, #TOKEN_MARK + 1))
    if entry == false or entry.expiry <= now then
      fail('HOLD_TOKEN_UNCHECKED', '', '')
      return true
    end
  elseif mark == TOKEN_TO_CHECK_MARK and not holdTokenMayHold(string.sub(arg, #TOKEN_MARK + 1)) then
    fail('HOLD_TOKEN_REFUSED', '', '')
    return true
  end
  return false
end
