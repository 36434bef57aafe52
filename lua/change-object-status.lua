-- Books, holds, releases or sets a custom status on objects of one or more events, all or
-- nothing: every object of every change is checked first (in request order, each change
-- seeing the ones before it), and only if all pass is anything written. One call serves
-- book, hold, release, change-object-status, event groups and batches
-- (src/inventory/statusChanges.ts builds the request).
--
-- KEYS     7 per event, in this order (src/inventory/eventKeys.ts):
--          objects, extraData, holdTokens, saleConfig, gaHoldExpiry, gaHolds, used set of this month
-- ARGV[1]  now (ms epoch): holds whose token expired by then count as free
-- ARGV[2]  JSON {changes: [{e, op, status, token?, tokenExpiry?, orderId?, keep?, channels?,
--          ignoreChannels?, allowed?, rejected?, objects: [{l, q?, t?, x?}]}], expand?}
--            e: the event's position (1-based) in KEYS; op: book | hold | release | status;
--            l: label; q: places (GA areas only, q > 0 marks an area); t: ticket type;
--            x: extra data as JSON text
-- Returns  {0, {code, label, detail}, ...} when any check fails (nothing written), or
--          {1, {e of events whose used set this call created}, results JSON or false}
--          where results (with expand) lists per change per object {record, extra}.

--#include records.lua

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
    gaHolds = {}, gaHoldsChanged = {}, gaExpiry = {}, usedLabels = {}, areasCleaned = false,
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

local function gaHeldBy(state, member)
  local qty = state.gaHolds[member]
  if qty == nil then
    qty = tonumber(redis.call('HGET', state.gaHoldsKey, member)) or 0
    state.gaHolds[member] = qty
  end
  return qty
end

local function saleField(state, field)
  return redis.call('HGET', state.saleConfig, field)
end

-- GA holds past their expiry give their places back before anything reads an area.
local function cleanExpiredAreaHolds(state)
  if state.areasCleaned then return end
  state.areasCleaned = true
  local expired = redis.call('ZRANGEBYSCORE', state.gaHoldExpiry, '-inf', now)
  for _, member in ipairs(expired) do
    local sep = string.find(member, SEP, 1, true)
    local label = string.sub(member, 1, sep - 1)
    local area = decodeArea(record(state, label))
    area.held = math.max(0, area.held - gaHeldBy(state, member))
    setRecord(state, label, encodeArea(area))
    state.gaHolds[member] = 0
    state.gaHoldsChanged[member] = true
    state.gaExpiry[member] = false
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

-- Channel and for-sale rules of the spec, the same for seats and areas.
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
  local heldByOther = object.status == HELD and object.token ~= token
  local nextObject = { status = change.status, token = '', orderId = change.orderId or '', ticketType = item.t or '', previous = '' }
  if op == 'book' or op == 'hold' then
    if object.status == HELD and not heldByOther and op == 'book' then
      nextObject.previous = object.previous
    elseif heldByOther then
      return fail('HOLD_TOKEN_MISMATCH', label, object.status)
    elseif not selectable(object.status) then
      return fail('OBJECT_NOT_FREE', label, object.status)
    else
      nextObject.previous = object.status == 'resale' and 'resale' or ''
    end
    if op == 'hold' then
      if change.tokenExpiry <= now then return fail('HOLD_TOKEN_EXPIRED', label, '') end
      nextObject.token = token
      state.tokens[token] = change.tokenExpiry
      state.tokensChanged[token] = true
    end
  elseif op == 'release' then
    if heldByOther and token ~= '' then return fail('HOLD_TOKEN_MISMATCH', label, object.status) end
    if object.status ~= HELD and token ~= '' then return fail('HOLD_TOKEN_MISMATCH', label, object.status) end
    if object.status == 'free' then return fail('OBJECT_NOT_RELEASABLE', label, object.status) end
    nextObject.status = object.previous ~= '' and object.previous or 'free'
    nextObject.ticketType = ''
  else
    if heldByOther then return fail('HOLD_TOKEN_MISMATCH', label, object.status) end
  end
  if nextObject.status == 'free' and nextObject.orderId == '' then
    setRecord(state, label, nil)
  else
    setRecord(state, label, encodeObject(nextObject))
  end
end

local function changeArea(state, change, item)
  local label = item.l
  cleanExpiredAreaHolds(state)
  local area = decodeArea(record(state, label))
  local full = area.nonFree + area.held >= item.c
  local current = full and area.status or 'free'
  local notForSale = allowedToSell(state, change, label, current)
  if not guard(change, label, current) then return end
  local op = change.op
  local token = change.token or ''
  local member = label .. SEP .. token
  local free = item.c - area.nonFree - area.held - notForSale
  local quantity = item.q
  if op == 'release' then
    if token ~= '' then
      local held = gaHeldBy(state, member)
      if quantity > held then return fail('HOLD_TOKEN_MISMATCH', label, tostring(held)) end
      state.gaHolds[member] = held - quantity
      state.gaHoldsChanged[member] = true
      if held == quantity then state.gaExpiry[member] = false end
      area.held = area.held - quantity
    else
      if quantity > area.nonFree then return fail('OBJECT_NOT_RELEASABLE', label, tostring(area.nonFree)) end
      area.nonFree = area.nonFree - quantity
    end
  elseif op == 'hold' then
    if change.tokenExpiry <= now then return fail('HOLD_TOKEN_EXPIRED', label, '') end
    if quantity > free then return fail('NOT_ENOUGH_FREE_PLACES', label, tostring(math.max(free, 0))) end
    state.gaHolds[member] = gaHeldBy(state, member) + quantity
    state.gaHoldsChanged[member] = true
    state.gaExpiry[member] = change.tokenExpiry
    state.tokens[token] = change.tokenExpiry
    state.tokensChanged[token] = true
    area.held = area.held + quantity
    area.status = HELD
  else
    -- Places this token holds are converted first; the rest must be free.
    local fromHold = 0
    if token ~= '' then
      fromHold = math.min(quantity, gaHeldBy(state, member))
      if fromHold > 0 then
        state.gaHolds[member] = gaHeldBy(state, member) - fromHold
        state.gaHoldsChanged[member] = true
        if state.gaHolds[member] == 0 then state.gaExpiry[member] = false end
        area.held = area.held - fromHold
      end
    end
    if quantity - fromHold > free then return fail('NOT_ENOUGH_FREE_PLACES', label, tostring(math.max(free, 0))) end
    area.nonFree = area.nonFree + quantity
    area.status = change.status
  end
  if area.nonFree == 0 and area.held == 0 then
    setRecord(state, label, nil)
  else
    setRecord(state, label, encodeArea(area))
  end
end

for _, change in ipairs(request.changes) do
  local state = eventState(change.e)
  for _, item in ipairs(change.objects) do
    if item.q and item.q > 0 then
      changeArea(state, change, item)
    else
      changeObject(state, change, item)
    end
    if change.op ~= 'release' then state.usedLabels[#state.usedLabels + 1] = item.l end
    if item.x or not change.keep then
      state.extra[item.l] = item.x or false
      state.extraChanged[item.l] = true
    end
  end
end

if #errors > 0 then
  local reply = { 0 }
  for i, e in ipairs(errors) do reply[i + 1] = e end
  return reply
end

local createdUsedSets = {}
for e, state in pairs(events) do
  for label in pairs(state.recordsChanged) do
    local value = state.records[label]
    if value then redis.call('HSET', state.objects, label, value) else redis.call('HDEL', state.objects, label) end
  end
  for label in pairs(state.extraChanged) do
    local value = state.extra[label]
    if value then redis.call('HSET', state.extraData, label, value) else redis.call('HDEL', state.extraData, label) end
  end
  for token in pairs(state.tokensChanged) do
    redis.call('HSET', state.holdTokens, token, state.tokens[token])
  end
  for member in pairs(state.gaHoldsChanged) do
    local qty = state.gaHolds[member]
    if qty > 0 then redis.call('HSET', state.gaHoldsKey, member, qty) else redis.call('HDEL', state.gaHoldsKey, member) end
  end
  for member, expiry in pairs(state.gaExpiry) do
    if expiry then redis.call('ZADD', state.gaHoldExpiry, expiry, member) else redis.call('ZREM', state.gaHoldExpiry, member) end
  end
  if #state.usedLabels > 0 then
    local existed = redis.call('EXISTS', state.used)
    redis.call('SADD', state.used, unpack(state.usedLabels))
    if existed == 0 then createdUsedSets[#createdUsedSets + 1] = e end
  end
end

if not request.expand then return { 1, createdUsedSets, false } end
local results = {}
for i, change in ipairs(request.changes) do
  local state = events[change.e]
  local objects = {}
  for j, item in ipairs(change.objects) do
    local extra = state.extra[item.l]
    if extra == nil then extra = redis.call('HGET', state.extraData, item.l) or false end
    objects[j] = { record(state, item.l) or '', extra or '' }
  end
  results[i] = objects
end
return { 1, createdUsedSets, cjson.encode(results) }
