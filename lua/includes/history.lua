-- The status-change history (docs/history.md): every object a call changes is appended to
-- its event's history stream in the same call, so a change and its record are one atomic
-- step; the drain (src/jobs/historyDrain.ts) moves entries into MongoDB later. Entries are
-- noted while the checks run and written only when every check passed.
-- An entry's id is `0-<n>`: Redis numbers the entries of each stream 1, 2, 3, ... (the id
-- the history routes show), and keeps counting after the stored ones are trimmed.
-- Its one field `c` is joined by SEP: time (ms), label, status, quantity, order id, hold
-- token, origin type, origin ip, extra data JSON (fields the caller cannot fill with SEP:
-- src/domain/statusChangeRequest.ts refuses control characters; JSON escapes them).
-- Needs: now, request (origin, ip), constants.lua, objectStates.lua (decodeObject),
-- eventState.lua (eventState, extraData), currentObject.lua.

-- Stream keys and entries, by position: two flat lists rather than a table per object.
local notedKeys, noted = {}, {}

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
  local n = #noted + 1
  notedKeys[n] = state.history
  noted[n] = table.concat({
    now, item.l, statusAfter(state, change, item), (item.q and item.q > 0) and item.q or 1, change.orderId or '', change.token or '',
    request.origin or 'API_CALL', request.ip or '', extra or '',
  }, SEP)
end

local function writeHistory()
  for i, entry in ipairs(noted) do redis.call('XADD', notedKeys[i], '0-*', 'c', entry) end
end
