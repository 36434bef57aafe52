-- The state of each event a status change touches, read through once and written back
-- once: every read goes through the event's state, so later changes of one call see
-- earlier ones, and nothing is written until every check of the call has passed.
-- Needs: KEYS (KEYS_PER_EVENT per event, in the order of src/inventory/eventKeys.ts
-- EVENT_KEY_NAMES, then the event's used-objects count key), objectStates.lua (decodeHold,
-- encodeHold), calls.lua (callChunked).

local KEYS_PER_EVENT = 7

local events = {}

-- The state of the event at position `e` (1-based) of KEYS.
local function eventState(e)
  local state = events[e]
  if state then return state end
  local base = (e - 1) * KEYS_PER_EVENT
  state = {
    objects = KEYS[base + 1], extraData = KEYS[base + 2], holdTokens = KEYS[base + 3],
    saleConfig = KEYS[base + 4], gaHoldExpiry = KEYS[base + 5], gaHoldsKey = KEYS[base + 6], used = KEYS[base + 7],
    records = {}, recordsChanged = {}, extra = {}, extraChanged = {}, tokens = {}, tokensChanged = {},
    gaHolds = {}, gaHoldsChanged = {}, gaExpiry = {}, areasCleaned = false,
  }
  events[e] = state
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

local function setRecord(state, label, value)
  state.records[label] = value or false
  state.recordsChanged[label] = true
end

-- The extra data of an object as it stands in this call ('' when none).
local function extraData(state, label)
  return readThrough(state.extra, state.extraData, label) or ''
end

local function setExtraData(state, label, value)
  state.extra[label] = value or false
  state.extraChanged[label] = true
end

-- A token's expiry in this event (0 when the event has none for it).
local function tokenExpiry(state, token)
  return tonumber(readThrough(state.tokens, state.holdTokens, token)) or 0
end

-- The expiry a hold gets. The event's own entry for the token wins over the one the
-- caller read: an expiry change (retime-hold-token-2.lua) may have moved it since.
local function holdExpiry(state, change)
  local token = change.token
  local expiry = tokenExpiry(state, token)
  if expiry == 0 then
    expiry = change.tokenExpiry
    state.tokens[token] = expiry
    state.tokensChanged[token] = true
  end
  return expiry
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
end

-- A field of the event's channel and for-sale config, or false. Most events have no
-- channels and everything for sale: their sale config hash does not exist, and one EXISTS
-- per event spares the lookups per object.
local function saleField(state, field)
  if state.hasSaleConfig == nil then state.hasSaleConfig = redis.call('EXISTS', state.saleConfig) == 1 end
  if not state.hasSaleConfig then return false end
  return redis.call('HGET', state.saleConfig, field)
end

-- The changed fields of a hash: field/value pairs to set, fields to delete (value false).
local function fieldChanges(changed, values)
  local sets, deletes = {}, {}
  for field in pairs(changed) do
    local value = values[field]
    if value then
      sets[#sets + 1] = field
      sets[#sets + 1] = value
    else
      deletes[#deletes + 1] = field
    end
  end
  return sets, deletes
end

-- Writes what changed in the event's state: one HSET and one HDEL per hash, however many
-- objects changed.
local function writeBack(state)
  local sets, deletes = fieldChanges(state.recordsChanged, state.records)
  callChunked('HSET', state.objects, sets)
  callChunked('HDEL', state.objects, deletes)
  sets, deletes = fieldChanges(state.extraChanged, state.extra)
  -- Without any extra data in the event there is nothing to delete.
  if #deletes > 0 and redis.call('EXISTS', state.extraData) == 1 then callChunked('HDEL', state.extraData, deletes) end
  callChunked('HSET', state.extraData, sets)
  for token in pairs(state.tokensChanged) do
    redis.call('HSET', state.holdTokens, token, state.tokens[token])
  end
  for member in pairs(state.gaHoldsChanged) do
    local entry = encodeHold(state.gaHolds[member])
    if entry then redis.call('HSET', state.gaHoldsKey, member, entry) else redis.call('HDEL', state.gaHoldsKey, member) end
  end
  for member, expiry in pairs(state.gaExpiry) do
    if expiry then redis.call('ZADD', state.gaHoldExpiry, expiry, member) else redis.call('ZREM', state.gaHoldExpiry, member) end
  end
end
