-- The status-change history of what a call asked for (docs/history.md): every object a
-- change changes gets one entry (historyEntries.lua), with the status it shows after the
-- change. Holds that ended by expiring are noted where they are given back
-- (eventState.lua, setRecord; areaRules.lua, cleanExpiredAreaHolds).
-- An object the change uses (change.u is set for book, hold and custom statuses) is marked
-- for the drain's count of used objects (historyEntries.lua).
-- Needs: request (origin, ip).
--#include constants.lua
--#include eventState.lua
--#include currentObject.lua
--#include historyEntries.lua

-- The status an object shows in the event after the change just made.
local function statusAfter(state, change, item)
  -- Book, hold and custom statuses set the status asked for (seats and areas alike); a
  -- release returns a seat to what it was before (free or resale).
  if (item.q and item.q > 0) or change.op == 'book' or change.op == 'hold' or change.op == 'status' then return change.status end
  if change.op == 'useSeason' and state.season and state.season.fb then
    return currentObject(eventState(state.season.fb), item.l).status
  end
  return currentObject(state, item.l).status
end

-- Notes the change of one object; called right after the change was made in `state`.
local function noteHistory(state, change, item)
  local extra = item.x
  if not extra and change.keep then extra = extraData(state, item.l) end
  local kind = change.op == 'override' and 'o' or change.op == 'useSeason' and 's' or nil
  noteEntry(state, item.l, statusAfter(state, change, item), (item.q and item.q > 0) and item.q or 1, change.orderId or '',
    change.token or '', request.origin or API_CALL, request.ip or '', extra or '', change.u, kind)
end
