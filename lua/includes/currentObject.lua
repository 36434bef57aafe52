-- The status a seat, table or booth has right now in one event: an expired hold is what
-- the object was before it (holds end at their token's expiry exactly, whether or not
-- anything cleaned them up yet).
-- Needs: now (ms).
--#include constants.lua
--#include objectStates.lua
--#include eventState.lua

local function currentObject(state, label)
  local object = decodeObject(record(state, label))
  if object.status == HELD and tokenExpiry(state, object.token) <= now then
    object.status = object.previous ~= '' and object.previous or FREE
    object.token = ''
    object.previous = ''
  end
  return object
end
