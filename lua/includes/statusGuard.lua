-- The caller's guard on the current status (allowedPreviousStatuses and
-- rejectedPreviousStatuses of the request; docs/seatsio-behaviour.md, "Changing object status").
--#include channelRule.lua
--#include failures.lua

-- True when the object's current status passes the guard; else records the failure.
local function guard(change, label, current)
  if change.allowed and not contains(change.allowed, current) then
    fail('ILLEGAL_STATUS_CHANGE', label, current)
    return false
  end
  if change.rejected and contains(change.rejected, current) then
    fail('ILLEGAL_STATUS_CHANGE', label, current)
    return false
  end
  return true
end
