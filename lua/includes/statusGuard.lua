-- The caller's guard on the current status (allowedPreviousStatuses and
-- rejectedPreviousStatuses of the request; docs/seatsio-behaviour.md, "Changing object status").
-- A refusal's detail is `allowed` or `rejected`, the current status and the status asked
-- for, joined by SEP: the server words seats.io's message from them (src/domain/errorCodes.ts).
--#include constants.lua
--#include channelRule.lua
--#include failures.lua

-- True when the object's current status passes the guard; else records the failure.
local function guard(change, label, current)
  if change.allowed and not contains(change.allowed, current) then
    fail('ILLEGAL_STATUS_CHANGE', label, 'allowed' .. SEP .. current .. SEP .. (change.status or ''))
    return false
  end
  if change.rejected and contains(change.rejected, current) then
    fail('ILLEGAL_STATUS_CHANGE', label, 'rejected' .. SEP .. current .. SEP .. (change.status or ''))
    return false
  end
  return true
end
