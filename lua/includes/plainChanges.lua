-- The plainest changes, written without the event's state tables (docs/performance.md, "One
-- Lua function call per status change"): one change on an event whose sale config does not exist (no
-- channels, everything for sale), with no parameter but an order id and a hold token, that
--   books or holds (with its token) seats that have no record (free, never held),
--   books seats its token holds (a record that is the hold and nothing else, the token's
--   entry in the event unexpired), or
--   releases seats that are booked or in a custom status with no hold on them (no token).
-- The event is outside seasons, or a unit of a season other than the season itself (an
-- event or a partial season, seasonRules.lua) planned on the season's make-up as it is, with
-- no override of the season's status and no sale config of the season to inherit; there a
-- booking or hold takes only seats that no unit of its scope has a record of, and the
-- season's count of records and its feed follow as writeBack and historyEntries.lua keep them.
-- Every object of such a change passes the checks of seatRules.lua, so there is nothing to
-- word: it is written at once. When anything is less plain (a record where a booking needs
-- none, a hold of another token or from resale, an expired token, a record in a unit of the
-- season, an area, a ticket type, extra data, a guard, channels named, expand, a second
-- change), plainChanges answers nil having written nothing, and `run` takes the general way.
-- What it writes is what the general way writes for the same change, record for record,
-- entry for entry, the token's entry and the season's count and feed too
-- (test/integration/plainChanges.test.ts compares the two ways on twin events,
-- test/integration/plainSeasonChanges.test.ts on twin seasons).
-- A plain call's positional arguments (plainRequest.lua) are read here as they are, labels
-- straight from ARGV: no request table is made unless the change goes the general way.
-- In a batch (change-object-status.lua, runBatch) the plain way of an event outside seasons
-- keeps what it writes to event 1's objects in batch.objects, read over the records Redis
-- has, and written with one HSET (and HDEL) when the batch ends or before a request that reads
-- the objects otherwise (writePendingObjects); and the one EXISTS of the sale config and the
-- extra data answers every plain request of the batch until one goes the general way (which
-- may write extra data).
-- Needs: KEYS, ARGV, request, call, now, batch (run has made them).
--#include statusContract.lua
--#include constants.lua
--#include objectStates.lua
--#include calls.lua
--#include callState.lua
--#include eventState.lua
--#include seatRules.lua
--#include seasonRules.lua
--#include historyEntries.lua
--#include requestRecord.lua
--#include plainRequest.lua
--#include tokenCheck.lua

-- Up to this many labels, plainWrite finds a repeat without a table.
local FEW_LABELS = 16

-- The batch's plain writes of event 1's objects, made now (the batch ends, or a request is about
-- to read the objects in another way).
local function writePendingObjects()
  local pending = batch and batch.objects
  if not pending then return end
  batch.objects = false
  local sets, deletes = {}, {}
  for label, value in pairs(pending) do addFieldChange(sets, deletes, label, value) end
  callChunked('HSET', batch.objectsKey, sets)
  callChunked('HDEL', batch.objectsKey, deletes)
end

-- The records of labels[first..last] in event 1 (false: none), the batch's pending writes over Redis's.
local function plainRecords(objectsKey, labels, first, last)
  local stored = redis.call('HMGET', objectsKey, unpack(labels, first, last))
  local pending = batch and batch.objects
  if pending then
    for i = first, last do
      local value = pending[labels[i]]
      if value ~= nil then stored[i - first + 1] = value end
    end
  end
  return stored
end

-- EXISTS of event 1's sale config and extra data, asked once per batch (see above).
local function saleConfigOrExtraData(saleConfigKey, extraDataKey)
  local known = batch and batch.plainExists
  if known then return known end
  local exists = redis.call('EXISTS', saleConfigKey, extraDataKey)
  if batch then batch.plainExists = exists end
  return exists
end

-- A released seat's record (false: none, the seat is free again) and the status it shows,
-- by seatRules.lua's release; nil when the seat is not plain to release (free, or held).
local function released(orderId, stored)
  if not stored then return nil end
  -- A record of a status alone (a seat booked with no order id: nearly every release) goes
  -- back to free with no record, as releasedObject makes of it: nothing to take apart.
  if orderId == '' and stored ~= FREE and not string.find(stored, SEP, 1, true) then return false, FREE end
  local object = decodeObject(stored)
  if object.status == FREE or object.token ~= '' then return nil end
  local after = releasedObject(object, orderId)
  return storedObject(after) or false, after.status
end

-- The token's entry in the event (objectStates.lua), as eventState.lua's holdExpiry makes it
-- for a hold when there is none; nil when the change cannot go on with it plainly (a hold
-- or a booking of held seats when the token has expired here, or a booking with a token the
-- event has no entry for: its holds, if any, are expired).
local function plainTokenEntry(hold, token, tokenExpiry)
  local entry = plainTokenEntryOf(token) or (hold and newTokenEntry(tokenExpiry))
  if not entry or entry.expiry <= now then return nil end
  return entry
end

-- Whether a unit of a season (its part of request.seasons, eventState.lua) can take a plain
-- change: planned on the season's make-up as it is (else the general way refuses it), no
-- override of the season's status in the event, no sale config of the season to inherit
-- (channels, places not for sale).
local function plainSeasonUnit(season)
  if season.top or season.lite or season.fdx or seasonChanged(season) then return false end
  if season.ov and redis.call('EXISTS', KEYS[season.ov]) == 1 then return false end
  return not season.fb or redis.call('EXISTS', eventKey(season.fb, EVENT_KEY_SALE_CONFIG)) == 0
end

-- Whether no unit of the season's scope (seasonRules.lua) has a record of any of the labels:
-- then none of them is taken in the season for this unit.
local function freeInSeason(season, labels, first, last)
  for _, p in ipairs(scopeUnits(season)) do
    local records = redis.call('HMGET', eventKey(p, EVENT_KEY_OBJECTS), unpack(labels, first, last))
    for i = 1, last - first + 1 do
      if records[i] then return false end
    end
  end
  return true
end

-- Writes a plain change of event 1, booking, holding or releasing labels[first..last], and
-- answers the call's reply; nil when the change is not plain (nothing written), and then true
-- as well when that is for the event's sale config (the general way need not look for it
-- again). `token`: the change's hold token ('' for none); `tokenExpiry` its expiry for a hold;
-- `season`: the event's part of request.seasons when it is a unit of a season, else nil.
local function plainWrite(op, status, orderId, token, tokenExpiry, usage, ip, labels, first, last, season)
  local book, hold = op == 'book', op == 'hold'
  if not (book or hold or op == 'release') or last < first then return nil end
  -- A hold takes its token and its expiry; a release by a token gives back only its own holds.
  if hold and (token == '' or not tokenExpiry or status ~= HELD) or (token ~= '' and op == 'release') then return nil end
  -- The server refuses a label named twice; a repeat here would be checked against itself.
  -- A few labels (a booking names two or four) are compared pairwise, as the server's
  -- planObjects does, without a table; many through one.
  if last - first < FEW_LABELS then
    for i = first + 1, last do
      for j = first, i - 1 do
        if labels[i] == labels[j] then return nil end
      end
    end
  else
    local seen = {}
    for i = first, last do
      local label = labels[i]
      if seen[label] then return nil end
      seen[label] = true
    end
  end
  -- The sale config and the extra data asked at once: most events have neither, and then one
  -- EXISTS answers 0 for both (docs/performance.md, "One Lua function call per status change").
  local saleConfigKey, extraDataKey = KEYS[EVENT_KEY_SALE_CONFIG], KEYS[EVENT_KEY_EXTRA_DATA]
  local hasExtraData = false
  if saleConfigOrExtraData(saleConfigKey, extraDataKey) > 0 then
    if redis.call('EXISTS', saleConfigKey) == 1 then return nil, true end
    hasExtraData = true
  end
  -- A unit of a season reads other units' records: the batch's pending writes are made first.
  if season then writePendingObjects() end
  -- A release is not checked against the season (seatRules.lua): only its make-up matters.
  if season and not (plainSeasonUnit(season) and (op == 'release' or freeInSeason(season, labels, first, last))) then return nil end
  local objectsKey = KEYS[EVENT_KEY_OBJECTS]
  local stored = plainRecords(objectsKey, labels, first, last)
  -- A booked or held seat's record is the same for every seat of the change (seatRules.lua
  -- books or holds a free seat, or books its own hold taken from a free seat, so, and no object
  -- here has a ticket type); a release's depends on each seat's.
  local sets, deletes, statuses, values = {}, {}, {}, {}
  local takenAs = false
  if book or hold then
    local taken = changedObject(status, orderId, '')
    if hold then taken.token = token end
    takenAs = storedObject(taken)
  end
  local ownHold = token ~= '' and HELD_PREFIX .. token
  local entry
  for i = first, last do
    local label, had, value = labels[i], stored[i - first + 1], nil
    if book or hold then
      if had then
        -- Only a booking may find a record: the hold of its own token, nothing more.
        if not (book and had == ownHold) then return nil end
        entry = entry or plainTokenEntry(false, token)
        if not entry then return nil end
        holdInEntry(entry, label, false)
      elseif hold then
        entry = entry or plainTokenEntry(true, token, tokenExpiry)
        if not entry then return nil end
        holdInEntry(entry, label, true)
      end
      value, statuses[i] = takenAs, status
    else
      value, statuses[i] = released(orderId, had)
      if value == nil then return nil end
    end
    addFieldChange(sets, deletes, label, value)
    values[i] = value
  end
  -- Every object passed: written as eventState.lua's writeBack writes, the extra data dropped
  -- (the change does not keep it), the history noted as history.lua notes it.
  if batch and not season then
    -- Kept for the batch's end (writePendingObjects): later requests read them from there.
    local pending = batch.objects
    if not pending then
      pending = {}
      batch.objects, batch.objectsKey = pending, objectsKey
    end
    for i = first, last do pending[labels[i]] = values[i] end
  else
    callChunked('HSET', objectsKey, sets)
    callChunked('HDEL', objectsKey, deletes)
  end
  if hasExtraData then callChunked('HDEL', extraDataKey, { unpack(labels, first, last) }) end
  if entry then writeTokenEntry(KEYS[EVENT_KEY_HOLD_TOKENS], 1, token, entry) end
  if season then
    for i = first, last do countInSeason(season, labels[i], stored[i - first + 1] ~= false, values[i] ~= false) end
  end
  local stream = { history = KEYS[EVENT_KEY_HISTORY] }
  stream.feed, stream.unitId = seasonFeed(season)
  for i = first, last do
    noteEntry(stream, labels[i], statuses[i], 1, orderId, token, API_CALL, ip, '', usage)
  end
  writeHistory()
  return remember(appliedReply(false))
end

-- Event 1's part of a call's seasons (request.seasons, eventState.lua): nil outside seasons,
-- false when another unit has a part too (only the unit changed has one: not plain).
local function plainSeason(seasons)
  if not seasons then return nil end
  for at in pairs(seasons) do
    if at ~= '1' then return false end
  end
  return seasons['1']
end

-- A plain call's change, read from its positional arguments: plain when it has no GA area
-- (its objects are labels alone) and no empty hold token (the mark alone: the general way
-- words what that does). `seasons`: the call's season part (seasonsArgument), or nil.
local function plainArgsChanges(seasons)
  local token = ARGV[ARG_TOKEN]
  local season = plainSeason(seasons)
  if ARGV[ARG_AREAS] ~= '0' or token == TOKEN_MARK or season == false then return nil end
  return plainWrite(ARGV[ARG_OP], ARGV[ARG_STATUS], '', string.sub(token, #TOKEN_MARK + 1), tonumber(given(ARGV[ARG_TOKEN_EXPIRY])),
    given(ARGV[ARG_USAGE]), ARGV[ARG_IP], ARGV, ARG_OBJECTS, #ARGV, season)
end

-- The call's reply when the request (decoded JSON) is one plain change, applied here; nil
-- when it is not (nothing written), as plainWrite answers.
local function plainChanges()
  if request.expand or request.origin or #request.changes ~= 1 then return nil end
  -- A unit of a season: only the unit changed has a part (the others are only read).
  local season = plainSeason(request.seasons)
  if season == false then return nil end
  local change = request.changes[1]
  if change.e ~= 1 or change.token == '' or change.listing or change.keep or change.channels or change.ignoreChannels or change.allowed or change.rejected then
    return nil
  end
  local labels = {}
  for i, item in ipairs(change.objects) do
    if item.q or item.t or item.x then return nil end
    labels[i] = item.l
  end
  return plainWrite(change.op, change.status, change.orderId or '', change.token or '', change.tokenExpiry, change.u, request.ip or '', labels, 1, #labels, season)
end
