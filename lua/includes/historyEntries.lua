-- The history entries a call writes (docs/history.md): noted while the checks run, in the
-- order the changes are made, and appended to their events' streams only when every check
-- passed (writeHistory), so a change and its entry are one atomic step.
-- Every changed object gets a number, 1, 2, 3, ... per stream (the id the history routes
-- show), but the objects a call changes one after the other in one stream, all used or all
-- not, share one stream entry (docs/history.md, "Written with the change"): a 2-seat booking
-- is one XADD, not two, and the drain reads one entry, not two. An entry's id is `0-<n>`,
-- `n` the number of its first object; Redis numbers an entry one past the last number
-- given, and XSETID moves that past the entry's other objects, so the next entry goes on
-- from there, trimmed entries or not. An entry holds at most MAX_ENTRY_OBJECTS objects.
-- Its field `c` is the objects' changes joined by RS, each joined by SEP: time (ms), label,
-- status, quantity, order id, hold token, origin type, origin ip, extra data JSON (fields
-- the caller cannot fill with SEP or RS: src/domain/statusChangeRequest.ts refuses control
-- characters; JSON escapes them). An entry of objects the call uses (billing: book, hold,
-- custom status) names its one field by its usage mark instead of `c`, what the drain needs
-- to count them (src/inventory/historyStreams.ts reads it; docs/history.md, "Used objects"):
-- one field, not two, is two Buffers fewer for the drain to take apart per entry. Readers
-- of the changes take the field's value whatever its name. Entries written before carried
-- the mark as a second field `u` (`c`, changes, `u`, mark); the drain still reads those. An
-- entry written before entries were shared is the same with one object.
-- In a batch (`batch` set, change-object-status.lua runBatch) a request's entries join the
-- batch's lists when it is applied, and the batch writes them once at its end
-- (writeBatchHistory): the requests' objects one after the other in a stream share its
-- entries as one request's do, each keeping its own number.
-- Needs: nowText (now as the caller sent it, ms), batch.
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

-- `used`: the entry's usage mark (the name of its field), or nil for an object the change does not use.
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

-- Objects one stream entry holds at most: the drain stores at most 1,000 objects per
-- MongoDB document and never splits an entry (src/jobs/historyDrain.ts, BATCH).
local MAX_ENTRY_OBJECTS = 1000

local function writeNoted(noted, notedKeys, notedUse, notedFeed)
  local n = #noted
  local first = 1
  while first <= n do
    local key, used = notedKeys[first], notedUse[first]
    local last = first
    while last < n and last - first + 1 < MAX_ENTRY_OBJECTS and notedKeys[last + 1] == key and notedUse[last + 1] == used do
      last = last + 1
    end
    local c = last == first and noted[first] or table.concat(noted, RS, first, last)
    local id
    if used then
      id = redis.call('XADD', key, '0-*', used, c)
    else
      id = redis.call('XADD', key, '0-*', 'c', c)
    end
    if last > first then redis.call('XSETID', key, '0-' .. (tonumber(string.sub(id, 3)) + last - first)) end
    -- A season's feed keeps an entry per object (its followers read the units' entries one by one).
    if notedFeed then
      for i = first, last do
        local feed = notedFeed[i]
        if feed then addToFeed(feed[1], noted[i], feed[2], feed[3]) end
      end
    end
    first = last + 1
  end
end

local function writeHistory()
  if not batch then return writeNoted(call.noted, call.notedKeys, call.notedUse, call.notedFeed) end
  -- One of a batch's requests, applied: its entries wait for the batch's end.
  local noted, notedKeys, notedUse, notedFeed = call.noted, call.notedKeys, call.notedUse, call.notedFeed
  local into = batch.noted
  local at = #into
  for i = 1, #noted do
    into[at + i] = noted[i]
    batch.notedKeys[at + i] = notedKeys[i]
    batch.notedUse[at + i] = notedUse[i]
    if notedFeed and notedFeed[i] then
      batch.notedFeed = batch.notedFeed or {}
      batch.notedFeed[at + i] = notedFeed[i]
    end
  end
end

-- The entries of a batch's applied requests, in their order.
local function writeBatchHistory()
  writeNoted(batch.noted, batch.notedKeys, batch.notedUse, batch.notedFeed)
end
