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
  local nextObject = { status = change.status, token = '', orderId = change.orderId or '', ticketType = item.t or '', previous = '', listing = '' }
  if op == 'status' then nextObject.listing = change.listing or '' elseif op == 'hold' then nextObject.listing = object.listing end
  if op == 'release' then
    -- Without a token anything non-free is released (back offices); with one, only its holds.
    if token ~= '' and (heldByOther or not held) then return fail('HOLD_TOKEN_MISMATCH', label, object.status) end
    if object.status == FREE then return fail('OBJECT_NOT_RELEASABLE', label, object.status) end
    nextObject.status = object.previous ~= '' and object.previous or FREE
    nextObject.ticketType = ''
    -- A released object leaves the order it was booked in; the release's own order id (a
    -- refund, say) is stored in its place, so that order lists it (nextObject.orderId).
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
  if nextObject.status == FREE and nextObject.orderId == '' then
    setRecord(state, label, nil)
  else
    setRecord(state, label, encodeObject(nextObject))
  end
end
