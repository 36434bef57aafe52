-- What one call of the status function keeps while it runs. `run` (change-object-status.lua)
-- sets `call` to newCall() first thing; an include keeps its per-call tables in its own
-- field of it and nowhere else (chunk-level tables are constants), so nothing of one call
-- can reach the next: a table an include forgets to add here fails every call at once
-- (indexing nil) instead of carrying state over. The Redis function's chunk runs once per
-- load, so a chunk-level table would otherwise live as long as the library.

local call

local function newCall()
  return {
    events = {},         -- event position -> its state (eventState.lua)
    holdingChanges = {}, -- e, token, 1|0 ...: tokens that started (1) or stopped (0) holding something in an event (eventState.lua, writeBack)
    errors = {},         -- the failed checks, {code, label, detail} each (failures.lua)
    notedKeys = {},      -- history entries noted, by position: their streams ...
    noted = {},          -- ... their text ...
    notedUse = {},       -- ... and their usage mark or false (historyEntries.lua)
    notedFeed = false,   -- their season feed entries, by position, once a unit of a season notes one (historyEntries.lua)
    results = {},        -- with expand: each change's objects right after it (change-object-status.lua)
    tokenEntry = false,  -- a plain call's token's entry in event 1 once read: {token, entry or false} (tokenCheck.lua)
    checkedTokenExpiry = false, -- the expiry of a hold's token the call checked (tokenCheck.lua), for the reply
  }
end

-- The reply of an applied call: 1 when there is nothing more to tell (no expanded `results`,
-- the JSON text of call.results, no holding changes and no token checked), which costs less to
-- encode, keep and read than the list {1, results or false, holding changes[, token expiry]}.
local function appliedReply(results)
  local expiry = call.checkedTokenExpiry
  if not results and #call.holdingChanges == 0 and not expiry then return 1 end
  if expiry then return { 1, results or false, call.holdingChanges, expiry } end
  return { 1, results or false, call.holdingChanges }
end
