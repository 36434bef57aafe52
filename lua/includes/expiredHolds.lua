-- What an expired hold token still holds in an event, given back (op `expire`, sent by the
-- hold expiry job, src/jobs/holdExpiry.ts): its seats, tables and booths return to what
-- they were before the hold (free, or resale), as a release would return them, and its GA
-- places to their area. setRecord and cleanExpiredAreaHolds note each one in the history as
-- HOLD_EXPIRED, and the token's entry leaves the event (docs/hold-expiry.md).
-- The sales flow has treated these objects as free since the instant the token expired
-- (currentObject.lua); this makes the stored state, the history and the event's token
-- entries catch up.
-- Needs: now (ms).
--#include constants.lua
--#include objectStates.lua
--#include eventState.lua
--#include failures.lua
--#include areaRules.lua

local function releaseExpiredHolds(state, token)
  local entry = tokenEntry(state, token)
  if not entry then return end
  -- The token's expiry moved past the job's (an expiry change reached this event after the
  -- job started): nothing is given back, and the job waits for the new expiry.
  if entry.expiry > now then return fail('HOLD_NOT_EXPIRED', '', string.format('%d', entry.expiry)) end
  cleanExpiredAreaHolds(state)
  local labels = {}
  for label in pairs(entry.labels) do labels[#labels + 1] = label end
  -- In label order, so the history lists a token's objects the same way every time.
  table.sort(labels)
  for _, label in ipairs(labels) do
    local hold = decodeObject(record(state, label))
    if hold.status == HELD and hold.token == token then
      if hold.previous == RESALE then setRecord(state, label, RESALE) else setRecord(state, label, nil) end
    else
      setHolding(state, token, label, false)
    end
  end
  -- An entry that held nothing (an expiry change writes one) leaves too.
  state.tokensChanged[token] = true
end
