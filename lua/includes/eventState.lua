-- The state of each event a status change touches, read through once and written back
-- once: every read goes through the event's state, so later changes of one call see
-- earlier ones, and nothing is written until every check of the call has passed.
-- An event of a season (docs/seasons.md) also carries what the request says of its season
-- (request.seasons[e], see change-object-status.lua): the key counting which objects its
-- units have records of, its overrides of the season's status, and the unit whose sale
-- config it inherits.
-- Each token's entry (its expiry here and what it holds here) follows every record and GA
-- hold written through this state, so the hold expiry job knows what to give back; a hold
-- overwritten after its token expired is noted in the history as HOLD_EXPIRED
-- (docs/hold-expiry.md).
-- Needs: KEYS (KEYS_PER_EVENT per event, at the positions statusContract.lua names), request, now.
--#include statusContract.lua
--#include callState.lua
--#include constants.lua
--#include objectStates.lua
--#include calls.lua
--#include historyEntries.lua

-- One of the keys (EVENT_KEY_<NAME>) of the event at position `e` (1-based) of KEYS.
local function eventKey(e, name)
  return KEYS[(e - 1) * KEYS_PER_EVENT + name]
end

-- The season's feed a unit of a season writes its history entries to as well
-- (historyEntries.lua), and the unit's id its entries there carry; nil when none (`season`:
-- the unit's part of request.seasons, or nil). `fdx`: only if the feed is there (an expiry
-- knows the event by its tag and id alone, which do not tell a top-level season from an
-- event outside seasons).
local function seasonFeed(season)
  if not season or not season.fd then return nil end
  local feed = KEYS[season.fd]
  if season.fdx and redis.call('EXISTS', feed) == 0 then return nil end
  return feed, season.id
end

-- The state of the event at position `e` (1-based) of KEYS.
local function eventState(e)
  local state = call.events[e]
  if state then return state end
  state = {
    e = e,
    objects = eventKey(e, EVENT_KEY_OBJECTS), extraData = eventKey(e, EVENT_KEY_EXTRA_DATA), holdTokens = eventKey(e, EVENT_KEY_HOLD_TOKENS),
    saleConfig = eventKey(e, EVENT_KEY_SALE_CONFIG), gaHoldExpiry = eventKey(e, EVENT_KEY_GA_HOLD_EXPIRY),
    gaHoldsKey = eventKey(e, EVENT_KEY_GA_HOLDS), history = eventKey(e, EVENT_KEY_HISTORY),
    records = {}, stored = {}, extra = {}, extraChanged = {}, tokens = {}, tokensChanged = {},
    gaHolds = {}, gaHoldsChanged = {}, gaExpiry = {}, areasCleaned = false,
    season = request.seasons and request.seasons[tostring(e)] or nil, overrides = {}, overridesChanged = {},
  }
  state.feed, state.unitId = seasonFeed(state.season)
  call.events[e] = state
  return state
end

-- A field of one of the event's hashes as it stands in this call: read from Redis once,
-- then from `values`, where this call's changes are kept too (false: no such field).
local function readThrough(values, key, field)
  local value = values[field]
  if value == nil then
    value = redis.call('HGET', key, field) or false
    values[field] = value
  end
  return value
end

-- An object's stored state, or nil when it is free.
local function record(state, label)
  return readThrough(state.records, state.objects, label) or nil
end

-- The extra data of an object as it stands in this call ('' when none).
local function extraData(state, label)
  return readThrough(state.extra, state.extraData, label) or ''
end

local function setExtraData(state, label, value)
  state.extra[label] = value or false
  state.extraChanged[label] = true
end

-- A token's entry in this event (objectStates.lua, decodeTokenEntry), or false.
local function tokenEntry(state, token)
  local entry = state.tokens[token]
  if entry == nil then
    local value = redis.call('HGET', state.holdTokens, token)
    entry = value and decodeTokenEntry(value) or false
    state.tokens[token] = entry
  end
  return entry
end

-- A token's expiry in this event (0 when the event has none for it).
local function tokenExpiry(state, token)
  local entry = tokenEntry(state, token)
  return entry and entry.expiry or 0
end

-- The expiry a hold gets. The event's own entry for the token wins over the one the
-- caller read: an expiry change (retime-hold-token-2.lua) may have moved it since.
local function holdExpiry(state, change)
  local token = change.token
  local entry = tokenEntry(state, token)
  if not entry then
    entry = newTokenEntry(change.tokenExpiry)
    state.tokens[token] = entry
    state.tokensChanged[token] = true
  end
  return entry.expiry
end

-- Notes whether `token` holds the object `label` (a seat, or places of a GA area) here.
-- A hold always finds its token's entry: holdExpiry made it before anything was held.
local function setHolding(state, token, label, holds)
  local entry = tokenEntry(state, token)
  if entry and holdInEntry(entry, label, holds) then state.tokensChanged[token] = true end
end

-- Sets an object's record (nil: free, no record), keeping its holder's entry in step; a
-- hold it replaces after the token expired goes into the history as HOLD_EXPIRED, with the
-- status the object returned to.
local function setRecord(state, label, value)
  local old = readThrough(state.records, state.objects, label)
  -- What Redis had, for the season's count of stored records (writeBack); its labels are
  -- the records this call changed.
  if state.stored[label] == nil then state.stored[label] = old end
  local oldToken, newToken = heldToken(old), heldToken(value)
  if oldToken ~= newToken then
    if oldToken then
      setHolding(state, oldToken, label, false)
      if tokenExpiry(state, oldToken) <= now then
        local hold = decodeObject(old)
        noteEntry(state, label, hold.previous ~= '' and hold.previous or FREE, 1, hold.orderId, oldToken, 'HOLD_EXPIRED', '',
          extraData(state, label))
      end
    end
    if newToken then setHolding(state, newToken, label, true) end
  end
  state.records[label] = value or false
end

-- The parts of one token's hold on one area ({channel, ticketType, places} each).
local function holdOf(state, member)
  local parts = state.gaHolds[member]
  if parts == nil then
    parts = decodeHold(redis.call('HGET', state.gaHoldsKey, member))
    state.gaHolds[member] = parts
  end
  return parts
end

-- Sets a hold's parts; `expiry` (re)schedules it, a hold of no places is unscheduled.
local function setHold(state, member, parts, expiry)
  state.gaHolds[member] = parts
  state.gaHoldsChanged[member] = true
  local total = 0
  for _, part in ipairs(parts) do total = total + part.places end
  if total == 0 then state.gaExpiry[member] = false elseif expiry then state.gaExpiry[member] = expiry end
  setHolding(state, holdMemberToken(member), holdMemberLabel(member), total > 0)
end

-- A field of the event's channel and for-sale config, or false. Most events have no
-- channels and everything for sale: their sale config hash does not exist, and one EXISTS
-- per event spares the lookups per object.
-- A unit of a season without a field of its own takes its season's (channels always,
-- places not for sale when the season propagates its for-sale config).
-- A field is `<prefix><label>` (prefix 'n:', 'c:', 'a:' or 'e:'), joined only when there is a
-- sale config to look in.
local function ownSaleField(state, prefix, label)
  if state.hasSaleConfig == nil then state.hasSaleConfig = redis.call('EXISTS', state.saleConfig) == 1 end
  return state.hasSaleConfig and redis.call('HGET', state.saleConfig, prefix .. label) or false
end

local function saleField(state, prefix, label)
  local value = ownSaleField(state, prefix, label)
  local season = state.season
  if value or not season or not season.fb then return value end
  if prefix == 'n:' and not season.nfs then return false end
  return saleField(eventState(season.fb), prefix, label)
end

-- Whether the event overrides its season's status of the object (override-season-status).
local function overridden(state, label)
  local key = state.season and state.season.ov
  if not key then return false end
  if state.hasOverrides == nil then state.hasOverrides = redis.call('EXISTS', KEYS[key]) == 1 end
  if not state.hasOverrides and state.overrides[label] == nil then return false end
  return readThrough(state.overrides, KEYS[key], label) ~= false
end

local function setOverridden(state, label, on)
  state.overrides[label] = on and '1' or false
  state.overridesChanged[label] = true
end

-- Adds a field's change to the lists of an HSET (field, value) or, with no value, an HDEL.
local function addFieldChange(sets, deletes, field, value)
  if value then
    sets[#sets + 1] = field
    sets[#sets + 1] = value
  else
    deletes[#deletes + 1] = field
  end
end

-- The changed fields of a hash: field/value pairs to set, fields to delete (value false).
local function fieldChanges(changed, values)
  local sets, deletes = {}, {}
  for field in pairs(changed) do addFieldChange(sets, deletes, field, values[field]) end
  return sets, deletes
end

-- Deletes fields of a hash that may not exist: most events have no extra data, and without
-- the hash there is nothing to delete.
local function deleteFields(key, fields)
  if #fields > 0 and redis.call('EXISTS', key) == 1 then callChunked('HDEL', key, fields) end
end

-- Keeps the season's count of the units under it that have a record of `label` (every unit
-- but the season itself), for a change from `had` to `has` a record of it: a booking on the
-- season knows without reading every event whether one of them took the object.
local function countInSeason(season, label, had, has)
  if had == has then return end
  if redis.call('HINCRBY', KEYS[season.use], label, has and 1 or -1) <= 0 then redis.call('HDEL', KEYS[season.use], label) end
end

-- Writes a token's entry in the event (`key`, its holdTokens hash) and notes in
-- call.holdingChanges when the token started or stopped holding something there.
local function writeTokenEntry(key, e, token, entry)
  if entry.count > 0 then
    redis.call('HSET', key, token, encodeTokenEntry(entry))
  else
    redis.call('HDEL', key, token)
  end
  if (entry.held > 0) ~= (entry.count > 0) then
    local changes = call.holdingChanges
    local n = #changes
    changes[n + 1], changes[n + 2], changes[n + 3] = e, token, entry.count > 0 and 1 or 0
  end
end

-- Writes what changed in the event's state: one HSET and one HDEL per hash, however many
-- objects changed.
local function writeBack(state)
  local sets, deletes = fieldChanges(state.stored, state.records)
  local season = state.season
  if season and not season.top then
    for label in pairs(state.stored) do countInSeason(season, label, state.stored[label] ~= false, state.records[label] ~= false) end
  end
  if season and season.ov then
    local on, off = fieldChanges(state.overridesChanged, state.overrides)
    callChunked('HSET', KEYS[season.ov], on)
    callChunked('HDEL', KEYS[season.ov], off)
  end
  callChunked('HSET', state.objects, sets)
  callChunked('HDEL', state.objects, deletes)
  sets, deletes = fieldChanges(state.extraChanged, state.extra)
  deleteFields(state.extraData, deletes)
  callChunked('HSET', state.extraData, sets)
  -- A token's entry stays while it holds something here; the server hears when a token
  -- starts or stops holding in the event.
  for token in pairs(state.tokensChanged) do writeTokenEntry(state.holdTokens, state.e, token, state.tokens[token]) end
  for member in pairs(state.gaHoldsChanged) do
    local entry = encodeHold(state.gaHolds[member])
    if entry then redis.call('HSET', state.gaHoldsKey, member, entry) else redis.call('HDEL', state.gaHoldsKey, member) end
  end
  for member, expiry in pairs(state.gaExpiry) do
    if expiry then redis.call('ZADD', state.gaHoldExpiry, expiry, member) else redis.call('ZREM', state.gaHoldExpiry, member) end
  end
end
