-- The plainest changes, written without the event's state tables (docs/performance.md, "A
-- plain booking in Redis"): one change on an event outside seasons whose sale config does not
-- exist (no channels, everything for sale), booking seats that have no record (free, never
-- held) or releasing seats that are booked or in a custom status with no hold on them, with
-- no hold token and no parameter but an order id. Every object of such a change passes the
-- checks of seatRules.lua, so there is nothing to word: it is written at once. When anything
-- is less plain (a record where a booking needs none, a hold, an area, a ticket type, extra
-- data, a guard, channels named, expand, a second change), plainChanges answers nil having
-- written nothing, and `run` takes the general way. What it writes is what the general way
-- writes for the same change, record for record and entry for entry
-- (test/integration/plainChanges.test.ts compares the two on twin events).
-- Needs: KEYS, request, call (run has made them).
--#include statusContract.lua
--#include constants.lua
--#include objectStates.lua
--#include calls.lua
--#include eventState.lua
--#include seatRules.lua
--#include historyEntries.lua
--#include requestRecord.lua

-- A released seat's record (false: none, the seat is free again) and the status it shows,
-- by seatRules.lua's release; nil when the seat is not plain to release (free, or held).
local function released(change, stored)
  if not stored then return nil end
  local object = decodeObject(stored)
  if object.status == FREE or object.token ~= '' then return nil end
  local after = releasedObject(object, change)
  return storedObject(after) or false, after.status
end

-- The call's reply when the request is one plain change, applied here; nil when it is not
-- (nothing written).
local function plainChanges()
  if request.expand or request.seasons or request.origin or #request.changes ~= 1 then return nil end
  local change = request.changes[1]
  local book = change.op == 'book'
  if not (book or change.op == 'release') or change.token or change.listing or change.keep or change.channels or change.ignoreChannels or change.allowed or change.rejected then
    return nil
  end
  local base = (change.e - 1) * KEYS_PER_EVENT
  local labels, seen = {}, {}
  for i, item in ipairs(change.objects) do
    -- The server refuses a label named twice; a repeat here would be checked against itself.
    if item.q or item.t or item.x or seen[item.l] then return nil end
    labels[i], seen[item.l] = item.l, true
  end
  if #labels == 0 then return nil end
  if redis.call('EXISTS', KEYS[base + EVENT_KEY_SALE_CONFIG]) == 1 then
    -- The general way would ask again (eventState.lua, ownSaleField).
    eventState(change.e).hasSaleConfig = true
    return nil
  end
  local objectsKey = KEYS[base + EVENT_KEY_OBJECTS]
  local stored = redis.call('HMGET', objectsKey, unpack(labels))
  -- A booked seat's record is the same for every seat of the change (seatRules.lua books a
  -- free seat so, and no item here has a ticket type); a release's depends on each seat's.
  local records, statuses = {}, {}
  local bookedAs = book and storedObject(changedObject(change, change.objects[1])) or false
  for i, label in ipairs(labels) do
    local value, status
    if book then
      if stored[i] then return nil end
      value, status = bookedAs, change.status
    else
      value, status = released(change, stored[i])
      if value == nil then return nil end
    end
    statuses[i], records[label] = status, value
  end
  local sets, deletes = fieldChanges(records, records)
  -- Every object passed: written as eventState.lua's writeBack writes, the extra data dropped
  -- (the change does not keep it), the history noted as history.lua notes it.
  callChunked('HSET', objectsKey, sets)
  callChunked('HDEL', objectsKey, deletes)
  deleteFields(KEYS[base + EVENT_KEY_EXTRA_DATA], labels)
  local stream = { history = KEYS[base + EVENT_KEY_HISTORY] }
  local orderId, ip = change.orderId or '', request.ip or ''
  for i, label in ipairs(labels) do
    noteEntry(stream, label, statuses[i], 1, orderId, '', API_CALL, ip, '', change.u)
  end
  writeHistory()
  return remember(1)
end
