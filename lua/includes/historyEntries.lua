-- The history entries a call writes (docs/history.md): noted while the checks run, in the
-- order the changes are made, and appended to their events' streams only when every check
-- passed (writeHistory), so a change and its entry are one atomic step.
-- An entry's id is `0-<n>`: Redis numbers the entries of each stream 1, 2, 3, ... (the id
-- the history routes show), and keeps counting after the stored ones are trimmed.
-- Its field `c` is joined by SEP: time (ms), label, status, quantity, order id, hold
-- token, origin type, origin ip, extra data JSON (fields the caller cannot fill with SEP:
-- src/domain/statusChangeRequest.ts refuses control characters; JSON escapes them).
-- An entry of an object the call uses (billing: book, hold, custom status) has a second
-- field `u`, what the drain needs to count it (src/inventory/usedObjects.ts reads it;
-- docs/history.md, "Used objects"). Readers of `c` alone skip it.
-- Needs: nowText (now as the caller sent it, ms).
--#include callState.lua
--#include constants.lua
--#include seasonFeed.lua

-- Stream keys, entries and usage marks are kept by position in call.notedKeys, call.noted
-- and call.notedUse: flat lists rather than a table per object.
-- A unit of a season (state.feed set, eventState.lua) also adds each entry to its season's
-- feed (seasonFeed.lua), with the unit's id and, for an event's override-season-status or
-- use-season-status, its kind. Kept by position in call.notedFeed ({feed, unit id, kind
-- or false}), made by the first such entry of the call: a call outside seasons (nearly
-- every booking) makes no such table.

-- `used`: the entry's `u` field, or nil for an object the change does not use.
-- `kind`: for the season's feed, 'o' (override) or 's' (use season status), or nil.
local function noteEntry(state, label, status, quantity, orderId, token, origin, ip, extra, used, kind)
  local noted = call.noted
  local n = #noted + 1
  call.notedKeys[n] = state.history
  call.notedUse[n] = used or false
  if state.feed then
    call.notedFeed = call.notedFeed or {}
    call.notedFeed[n] = { state.feed, state.unitId, kind or false }
  end
  noted[n] = nowText .. SEP .. label .. SEP .. status .. SEP .. quantity .. SEP .. orderId .. SEP .. token .. SEP .. origin .. SEP .. ip .. SEP .. extra
end

local function writeHistory()
  local notedKeys, notedUse, notedFeed = call.notedKeys, call.notedUse, call.notedFeed
  for i, entry in ipairs(call.noted) do
    local used = notedUse[i]
    if used then
      redis.call('XADD', notedKeys[i], '0-*', 'c', entry, 'u', used)
    else
      redis.call('XADD', notedKeys[i], '0-*', 'c', entry)
    end
    local feed = notedFeed and notedFeed[i]
    if feed then addToFeed(feed[1], entry, feed[2], feed[3]) end
  end
end
