-- The rules for a seat, table or booth (docs/seatsio-behaviour.md, "Object statuses"):
-- book, hold, release or a custom status on one object, checked against its current state,
-- its channel, its for-sale state and the hold token of the request.
-- Needs: now (ms).
--#include constants.lua
--#include objectStates.lua
--#include eventState.lua
--#include currentObject.lua
--#include failures.lua
--#include channelRule.lua
--#include statusGuard.lua
--#include seasonRules.lua

local function selectable(status)
  return status == FREE or status == RESALE
end

-- What a book, hold or custom status makes of a seat, before what the operation adds: the
-- status asked for, the change's order id and the item's ticket type.
local function changedObject(status, orderId, ticketType)
  return { status = status, token = '', orderId = orderId, ticketType = ticketType, previous = '', listing = '' }
end

-- What a release makes of a seat: back to what it was before (free or resale), with the
-- release's order id (a refund, say: that order lists it), nothing else.
local function releasedObject(object, orderId)
  return { status = object.previous ~= '' and object.previous or FREE, token = '', orderId = orderId, ticketType = '', previous = '', listing = '' }
end

-- A seat's stored record: none when it is free with no order id.
local function storedObject(object)
  if object.status == FREE and object.orderId == '' then return nil end
  return encodeObject(object)
end

local function changeObject(state, change, item)
  local label = item.l
  local object = currentObject(state, label)
  -- A resale object is open to every channel.
  if not usableParts(state, change, label, NO_ALLOTMENTS, object.status == RESALE) then return end
  if not guard(change, label, object.status) then return end
  local op = change.op
  local token = change.token or ''
  if op ~= 'release' then
    if (tonumber(saleField(state, 'n:', label)) or 0) > 0 then return fail('OBJECT_NOT_FOR_SALE', label, '') end
    if state.season then
      -- Not for sale, or in a channel of its own, in one of the season's events (seasons only).
      if (tonumber(ownSaleField(state, 'e:', label)) or 0) > 0 then return fail('OBJECT_NOT_FOR_SALE', label, '') end
      local taken = seasonConflict(state, label)
      if taken == UNITS_NEEDED then return fail('SEASON_UNITS_NEEDED', label, '') end
      if taken then return fail('OBJECT_TAKEN_IN_SEASON', label, taken) end
    end
  end
  local held = object.status == HELD
  local heldByOther = held and object.token ~= token
  -- A resale listing id is set by a status change, kept by a hold, cleared by book and release.
  local nextObject = changedObject(change.status, change.orderId or '', item.t or '')
  if op == 'status' then nextObject.listing = change.listing or '' elseif op == 'hold' then nextObject.listing = object.listing end
  if op == 'release' then
    -- Without a token anything non-free is released (back offices); with one, only its holds.
    if token ~= '' and (heldByOther or not held) then return fail('HOLD_TOKEN_MISMATCH', label, object.status) end
    if object.status == FREE then return fail('OBJECT_NOT_RELEASABLE', label, object.status) end
    -- A released object leaves the order it was booked in.
    nextObject = releasedObject(object, change.orderId or '')
  elseif heldByOther then
    return fail('HOLD_TOKEN_MISMATCH', label, object.status)
  elseif op == 'book' and held then
    -- Confirming one's own hold: it returns where it came from on release.
    nextObject.previous = object.previous
  elseif op == 'book' or op == 'hold' then
    if not selectable(object.status) then return fail('OBJECT_NOT_FREE', label, object.status) end
    nextObject.previous = object.status == RESALE and RESALE or ''
    if op == 'hold' then
      if holdExpiry(state, change) <= now then return fail('HOLD_TOKEN_EXPIRED', label, '') end
      nextObject.token = token
    end
  end
  setRecord(state, label, storedObject(nextObject))
end
