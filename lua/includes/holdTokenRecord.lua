-- A hold token's record checked for a hold in one event: the token must be of the caller's
-- workspace and unexpired. Only then does the event join the token's events set (kept
-- `keptMs` more), so that a later expiry change reaches it (retime-hold-token-2.lua); a
-- refused token writes nothing, so an unknown, expired or foreign token leaves no trace.
-- Used by hold-token-for-event-2.lua (the server's own check) and tokenCheck.lua (a plain
-- hold whose token the status function checks), so both refuse and record alike.
-- Needs: nothing of the script that includes it.

-- The token's expiry (ms epoch), or 0 when it may not hold. `workspaceId` as text, as the
-- record keeps it; `eventEntry` the event as the events set lists it, `<tag>:<eventId>`.
local function holdTokenForEvent(tokenKey, eventsKey, workspaceId, now, eventEntry, keptMs)
  local fields = redis.call('HMGET', tokenKey, 'workspaceId', 'expiresAt')
  local expiresAt = tonumber(fields[2]) or 0
  if fields[1] ~= workspaceId or expiresAt <= now then return 0 end
  redis.call('SADD', eventsKey, eventEntry)
  redis.call('PEXPIRE', eventsKey, keptMs)
  return expiresAt
end
