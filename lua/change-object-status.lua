-- Books, holds, releases or sets a custom status on objects of one or more events, all or
-- nothing: every object of every change is checked first (in request order, each change
-- seeing the ones before it), and only if all pass is anything written. One call serves
-- book, hold, release, change-object-status, event groups and batches
-- (src/inventory/statusChanges.ts builds the request).
--
-- KEYS     7 per event, in this order (src/inventory/eventKeys.ts):
--          objects, extraData, holdTokens, saleConfig, gaHoldExpiry, gaHolds, count of the used
--          objects of this month (includes/usedObjects.lua); then the used-object bucket keys
-- ARGV[1]  now (ms epoch): holds whose token expired by then count as free
-- ARGV[2]  JSON {changes: [{e, op, status, token?, tokenExpiry?, orderId?, keep?, channels?,
--          ignoreChannels?, allowed?, rejected?, objects: [{l, q?, t?, x?}]}], expand?,
--          used: per event, the labels to count as used by bucket key [[key index, [label, ...]], ...],
--          usedBuckets: per event, its number of bucket keys}
--            e: the event's position (1-based) in KEYS; op: book | hold | release | status;
--            l: label; q: places (GA areas only, q > 0 marks an area); t: ticket type;
--            x: extra data as JSON text
-- Returns  {0, {code, label, detail}, ...} when any check fails (nothing written), or
--          {1, {e of events whose used objects hash this call created}, results JSON or false}
--          where results (with expand) lists per change per object {record, extra} as
--          they were right after that change (a batch may change one object twice).

--#include records.lua
--#include calls.lua
--#include usedObjects.lua

local now = tonumber(ARGV[1])
local request = cjson.decode(ARGV[2])
local KEYS_PER_EVENT = 7
local HELD = 'reservedByToken'

local events = {}

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

-- Reads go through the event's state, so later changes of one call see earlier ones.
local function record(state, label)
  local value = state.records[label]
  if value == nil then
    value = redis.call('HGET', state.objects, label) or false
    state.records[label] = value
  end
  return value or nil
end

local function setRecord(state, label, value)
  state.records[label] = value or false
  state.recordsChanged[label] = true
end

local function tokenExpiry(state, token)
  local expiry = state.tokens[token]
  if expiry == nil then
    expiry = tonumber(redis.call('HGET', state.holdTokens, token)) or 0
    state.tokens[token] = expiry
  end
  return expiry
end

-- The expiry a hold gets. The event's own entry for the token wins over the one the
-- caller read: an expiry change (retime-hold-token.lua) may have moved it since.
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

local function setHold(state, member, parts, expiry)
  state.gaHolds[member] = parts
  state.gaHoldsChanged[member] = true
  local total = 0
  for _, part in ipairs(parts) do total = total + part.places end
  if total == 0 then state.gaExpiry[member] = false elseif expiry then state.gaExpiry[member] = expiry end
end

-- Most events have no channels and everything for sale: their sale config hash does not
-- exist, and one EXISTS per event spares the lookups per object.
local function saleField(state, field)
  if state.hasSaleConfig == nil then state.hasSaleConfig = redis.call('EXISTS', state.saleConfig) == 1 end
  if not state.hasSaleConfig then return false end
  return redis.call('HGET', state.saleConfig, field)
end

local function channelUse(area, channel)
  local use = area.channels[channel]
  if not use then
    use = { booked = 0, held = 0 }
    area.channels[channel] = use
  end
  return use
end

-- Changes an area's booked and held places by the deltas, in its totals and, for places
-- of a channel, in that channel's counts too: the two always move together.
local function shift(area, channel, booked, held)
  area.nonFree = area.nonFree + booked
  area.held = area.held + held
  if channel ~= '' then
    local use = channelUse(area, channel)
    use.booked = use.booked + booked
    use.held = use.held + held
  end
end

-- An area's booked and held places outside any channel.
local function outsideChannels(area)
  local booked, held = area.nonFree, area.held
  for _, use in pairs(area.channels) do
    booked = booked - use.booked
    held = held - use.held
  end
  return booked, held
end

-- Takes up to `quantity` places out of a token's hold, part by part, telling `moved`
-- each part's channel and places; returns how many places the hold lacked.
local function takeFromHold(hold, quantity, moved)
  local left = quantity
  for _, part in ipairs(hold) do
    local x = math.min(left, part.places)
    if x > 0 then
      part.places = part.places - x
      left = left - x
      moved(part.channel, x)
    end
  end
  return left
end

-- GA holds past their expiry give their places back before anything reads an area.
local function cleanExpiredAreaHolds(state)
  if state.areasCleaned then return end
  state.areasCleaned = true
  local expired = redis.call('ZRANGEBYSCORE', state.gaHoldExpiry, '-inf', now)
  for _, member in ipairs(expired) do
    local label = holdMemberLabel(member)
    local area = decodeArea(record(state, label))
    for _, part in ipairs(holdOf(state, member)) do shift(area, part.channel, 0, -part.places) end
    setRecord(state, label, encodeArea(area))
    setHold(state, member, {}, nil)
  end
end

-- The status an object has right now: an expired hold is what the object was before it.
local function currentObject(state, label)
  local object = decodeObject(record(state, label))
  if object.status == HELD and tokenExpiry(state, object.token) <= now then
    object.status = object.previous ~= '' and object.previous or 'free'
    object.token = ''
    object.previous = ''
  end
  return object
end

local function contains(list, value)
  if not list then return false end
  for _, item in ipairs(list) do
    if item == value then return true end
  end
  return false
end

local errors = {}
local function fail(code, label, detail)
  errors[#errors + 1] = { code, label, detail or '' }
end

-- Channel and for-sale rules of the spec for a seat, table or booth (areas: usableParts).
local function allowedToSell(state, change, label, current)
  local notForSale = tonumber(saleField(state, 'n:' .. label)) or 0
  if change.ignoreChannels or current == 'resale' then return notForSale end
  local channel = saleField(state, 'c:' .. label)
  if channel then
    if not contains(change.channels, channel) then fail('OBJECT_IN_CHANNEL', label, channel) end
  elseif change.channels and not contains(change.channels, 'NO_CHANNEL') then
    fail('OBJECT_NOT_IN_CHANNEL', label, '')
  end
  return notForSale
end

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

local function selectable(status)
  return status == 'free' or status == 'resale'
end

local function changeObject(state, change, item)
  local label = item.l
  local object = currentObject(state, label)
  local notForSale = allowedToSell(state, change, label, object.status)
  if not guard(change, label, object.status) then return end
  local op = change.op
  local token = change.token or ''
  if op ~= 'release' and notForSale > 0 then return fail('OBJECT_NOT_FOR_SALE', label, '') end
  local held = object.status == HELD
  local heldByOther = held and object.token ~= token
  local nextObject = { status = change.status, token = '', orderId = change.orderId or '', ticketType = item.t or '', previous = '' }
  if op == 'release' then
    -- Without a token anything non-free is released (back offices); with one, only its holds.
    if token ~= '' and (heldByOther or not held) then return fail('HOLD_TOKEN_MISMATCH', label, object.status) end
    if object.status == 'free' then return fail('OBJECT_NOT_RELEASABLE', label, object.status) end
    nextObject.status = object.previous ~= '' and object.previous or 'free'
    nextObject.ticketType = ''
  elseif heldByOther then
    return fail('HOLD_TOKEN_MISMATCH', label, object.status)
  elseif op == 'book' and held then
    -- Confirming one's own hold: it returns where it came from on release.
    nextObject.previous = object.previous
  elseif op == 'book' or op == 'hold' then
    if not selectable(object.status) then return fail('OBJECT_NOT_FREE', label, object.status) end
    nextObject.previous = object.status == 'resale' and 'resale' or ''
    if op == 'hold' then
      if holdExpiry(state, change) <= now then return fail('HOLD_TOKEN_EXPIRED', label, '') end
      nextObject.token = token
    end
  end
  if nextObject.status == 'free' and nextObject.orderId == '' then
    setRecord(state, label, nil)
  else
    setRecord(state, label, encodeObject(nextObject))
  end
end

-- The places an event assigned to channels in an area (channel areaPlaces): {channel = n}, total.
local function allotments(state, label)
  local allotted, total = {}, 0
  local field = saleField(state, 'a:' .. label)
  if field then
    local f = split(field)
    for i = 1, #f - 1, 2 do
      local places = tonumber(f[i + 1]) or 0
      allotted[f[i]] = places
      total = total + places
    end
  end
  return allotted, total
end

-- The parts of an area a request may use, in the order they are used: the channels it
-- names that have places here, then the places outside any channel ('') when allowed.
local function usableParts(state, change, label, allotted)
  if change.ignoreChannels then
    local parts = { '' }
    for channel in pairs(allotted) do parts[#parts + 1] = channel end
    return parts
  end
  local whole = saleField(state, 'c:' .. label)
  if whole then
    if not contains(change.channels, whole) then fail('OBJECT_IN_CHANNEL', label, whole) return nil end
    return { '' }
  end
  if not change.channels then return { '' } end
  local parts = {}
  for _, channel in ipairs(change.channels) do
    if allotted[channel] then parts[#parts + 1] = channel end
  end
  if contains(change.channels, 'NO_CHANNEL') then parts[#parts + 1] = '' end
  if #parts == 0 then fail('OBJECT_NOT_IN_CHANNEL', label, '') return nil end
  return parts
end

-- Free places of one part of an area.
local function freeIn(area, part, capacity, notForSale, allotted, total)
  if part ~= '' then
    local use = channelUse(area, part)
    return allotted[part] - use.booked - use.held
  end
  local booked, held = outsideChannels(area)
  return capacity - notForSale - total - booked - held
end

-- Takes `quantity` free places from the usable parts, in order: {part = places} or nil.
local function takeFree(area, parts, quantity, capacity, notForSale, allotted, total)
  local taken, left, free = {}, quantity, 0
  for _, part in ipairs(parts) do
    local available = math.max(0, freeIn(area, part, capacity, notForSale, allotted, total))
    free = free + available
    local x = math.min(left, available)
    if x > 0 then
      taken[#taken + 1] = { channel = part, places = x }
      left = left - x
    end
  end
  if left > 0 then return nil, free end
  return taken, free
end

local function changeArea(state, change, item)
  local label = item.l
  local capacity = item.c
  cleanExpiredAreaHolds(state)
  local area = decodeArea(record(state, label))
  local full = area.nonFree + area.held >= capacity
  local current = full and area.status or 'free'
  local notForSale = tonumber(saleField(state, 'n:' .. label)) or 0
  local allotted, total = allotments(state, label)
  local parts = usableParts(state, change, label, allotted)
  if not parts then return end
  if not guard(change, label, current) then return end
  local op = change.op
  local token = change.token or ''
  local member = holdMember(label, token)
  local quantity = item.q

  if op == 'release' then
    if token ~= '' then
      -- Frees places this token holds, whatever part they were taken from.
      local hold = holdOf(state, member)
      local left = takeFromHold(hold, quantity, function(channel, x) shift(area, channel, 0, -x) end)
      if left > 0 then return fail('HOLD_TOKEN_MISMATCH', label, tostring(quantity - left)) end
      setHold(state, member, hold, nil)
    else
      -- Frees booked places of the parts the caller may use.
      local left = quantity
      for _, part in ipairs(parts) do
        local booked = part == '' and outsideChannels(area) or channelUse(area, part).booked
        local x = math.min(left, booked)
        left = left - x
        shift(area, part, -x, 0)
      end
      if left > 0 then return fail('OBJECT_NOT_RELEASABLE', label, tostring(quantity - left)) end
    end
  elseif op == 'hold' then
    local expiry = holdExpiry(state, change)
    if expiry <= now then return fail('HOLD_TOKEN_EXPIRED', label, '') end
    local taken, free = takeFree(area, parts, quantity, capacity, notForSale, allotted, total)
    if not taken then return fail('NOT_ENOUGH_FREE_PLACES', label, tostring(free)) end
    local hold = holdOf(state, member)
    for _, t in ipairs(taken) do
      hold[#hold + 1] = { channel = t.channel, ticketType = item.t or '', places = t.places }
      shift(area, t.channel, 0, t.places)
    end
    setHold(state, member, hold, expiry)
    area.status = HELD
  else
    -- Places this token holds are converted first, in the part they were taken from; the
    -- rest must be free.
    local left = quantity
    if token ~= '' then
      local hold = holdOf(state, member)
      left = takeFromHold(hold, quantity, function(channel, x) shift(area, channel, x, -x) end)
      setHold(state, member, hold, nil)
    end
    if left > 0 then
      local taken, free = takeFree(area, parts, left, capacity, notForSale, allotted, total)
      if not taken then return fail('NOT_ENOUGH_FREE_PLACES', label, tostring(free)) end
      for _, t in ipairs(taken) do shift(area, t.channel, t.places, 0) end
    end
    area.status = change.status
  end
  if area.nonFree == 0 and area.held == 0 then
    setRecord(state, label, nil)
  else
    setRecord(state, label, encodeArea(area))
  end
end

-- With expand: each change's objects as they stand right after that change.
local results = {}
local function snapshot(state, change)
  local objects = {}
  for j, item in ipairs(change.objects) do
    local extra = state.extra[item.l]
    if extra == nil then extra = redis.call('HGET', state.extraData, item.l) or false end
    objects[j] = { record(state, item.l) or '', extra or '' }
  end
  return objects
end

for i, change in ipairs(request.changes) do
  local state = eventState(change.e)
  for _, item in ipairs(change.objects) do
    if item.q and item.q > 0 then
      changeArea(state, change, item)
    else
      changeObject(state, change, item)
    end
    if item.x or not change.keep then
      state.extra[item.l] = item.x or false
      state.extraChanged[item.l] = true
    end
  end
  if request.expand and #errors == 0 then results[i] = snapshot(state, change) end
end

if #errors > 0 then
  local reply = { 0 }
  for i, e in ipairs(errors) do reply[i + 1] = e end
  return reply
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

local firstUses = {}
for e, state in pairs(events) do
  -- One HSET and one HDEL per hash, however many objects changed.
  local sets, deletes = fieldChanges(state.recordsChanged, state.records)
  callChunked('HSET', state.objects, sets)
  callChunked('HDEL', state.objects, deletes)
  sets, deletes = fieldChanges(state.extraChanged, state.extra)
  -- Without any extra data in the event there is nothing to delete (and nothing to log).
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
  local used = request.used[e]
  if #used > 0 and addUsedObjects(state.used, used, request.usedBuckets[e]) then firstUses[#firstUses + 1] = e end
end

if not request.expand then return { 1, firstUses, false } end
return { 1, firstUses, cjson.encode(results) }
