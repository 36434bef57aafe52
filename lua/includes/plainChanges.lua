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
-- A plain call's positional arguments (plainRequest.lua) are read here as they are, labels
-- straight from ARGV: no request table is made unless the change goes the general way.
-- Needs: KEYS, ARGV, request, call (run has made them).
--#include statusContract.lua
--#include constants.lua
--#include objectStates.lua
--#include calls.lua
--#include eventState.lua
--#include seatRules.lua
--#include historyEntries.lua
--#include requestRecord.lua
--#include plainRequest.lua

-- A released seat's record (false: none, the seat is free again) and the status it shows,
-- by seatRules.lua's release; nil when the seat is not plain to release (free, or held).
local function released(orderId, stored)
  if not stored then return nil end
  local object = decodeObject(stored)
  if object.status == FREE or object.token ~= '' then return nil end
  local after = releasedObject(object, orderId)
  return storedObject(after) or false, after.status
end

-- Writes a plain change of event 1, booking or releasing labels[first..last], and answers
-- the call's reply; nil when the change is not plain (nothing written), and then true as well
-- when that is for the event's sale config (the general way need not look for it again).
local function plainWrite(op, status, orderId, usage, ip, labels, first, last)
  local book = op == 'book'
  if not (book or op == 'release') or last < first then return nil end
  -- The server refuses a label named twice; a repeat here would be checked against itself.
  if last > first then
    local seen = {}
    for i = first, last do
      local label = labels[i]
      if seen[label] then return nil end
      seen[label] = true
    end
  end
  if redis.call('EXISTS', KEYS[EVENT_KEY_SALE_CONFIG]) == 1 then return nil, true end
  local objectsKey = KEYS[EVENT_KEY_OBJECTS]
  local stored = redis.call('HMGET', objectsKey, unpack(labels, first, last))
  -- A booked seat's record is the same for every seat of the change (seatRules.lua books a
  -- free seat so, and no object here has a ticket type); a release's depends on each seat's.
  local sets, deletes, statuses = {}, {}, {}
  local bookedAs = book and storedObject(changedObject(status, orderId, '')) or false
  for i = first, last do
    local label, value = labels[i], nil
    if book then
      if stored[i - first + 1] then return nil end
      value, statuses[i] = bookedAs, status
    else
      value, statuses[i] = released(orderId, stored[i - first + 1])
      if value == nil then return nil end
    end
    addFieldChange(sets, deletes, label, value)
  end
  -- Every object passed: written as eventState.lua's writeBack writes, the extra data dropped
  -- (the change does not keep it), the history noted as history.lua notes it.
  callChunked('HSET', objectsKey, sets)
  callChunked('HDEL', objectsKey, deletes)
  deleteFields(KEYS[EVENT_KEY_EXTRA_DATA], { unpack(labels, first, last) })
  local stream = { history = KEYS[EVENT_KEY_HISTORY] }
  for i = first, last do
    noteEntry(stream, labels[i], statuses[i], 1, orderId, '', API_CALL, ip, '', usage)
  end
  writeHistory()
  return remember(1)
end

-- A plain call's change, read from its positional arguments: plain when it has no hold
-- token and no GA area (its objects are labels alone).
local function plainArgsChanges()
  if ARGV[ARG_TOKEN] ~= '' or ARGV[ARG_AREAS] ~= '0' then return nil end
  return plainWrite(ARGV[ARG_OP], ARGV[ARG_STATUS], '', given(ARGV[ARG_USAGE]), ARGV[ARG_IP], ARGV, ARG_OBJECTS, #ARGV)
end

-- The call's reply when the request (decoded JSON) is one plain change, applied here; nil
-- when it is not (nothing written), as plainWrite answers.
local function plainChanges()
  if request.expand or request.seasons or request.origin or #request.changes ~= 1 then return nil end
  local change = request.changes[1]
  if change.e ~= 1 or change.token or change.listing or change.keep or change.channels or change.ignoreChannels or change.allowed or change.rejected then
    return nil
  end
  local labels = {}
  for i, item in ipairs(change.objects) do
    if item.q or item.t or item.x then return nil end
    labels[i] = item.l
  end
  return plainWrite(change.op, change.status, change.orderId or '', change.u, request.ip or '', labels, 1, #labels)
end
