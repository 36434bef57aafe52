-- The rules for a GA area (docs/seatsio-behaviour.md, "Object statuses"): booking, holding
-- and releasing places, within the area's capacity, the places not for sale, and the
-- places the event assigned to channels, which are separate pools inside the area.
-- Needs: now (ms).
--#include constants.lua
--#include objectStates.lua
--#include eventState.lua
--#include failures.lua
--#include channelRule.lua
--#include statusGuard.lua
--#include historyEntries.lua

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

-- GA holds past their expiry give their places back before anything reads an area, each
-- noted in the history as HOLD_EXPIRED.
local function cleanExpiredAreaHolds(state)
  if state.areasCleaned then return end
  state.areasCleaned = true
  local expired = redis.call('ZRANGEBYSCORE', state.gaHoldExpiry, '-inf', now)
  for _, member in ipairs(expired) do
    local label = holdMemberLabel(member)
    local area = decodeArea(record(state, label))
    local places = 0
    for _, part in ipairs(holdOf(state, member)) do
      shift(area, part.channel, 0, -part.places)
      places = places + part.places
    end
    setRecord(state, label, encodeArea(area))
    setHold(state, member, {}, nil)
    if places > 0 then noteEntry(state, label, FREE, places, '', holdMemberToken(member), 'HOLD_EXPIRED', '', '') end
  end
end

-- Places of an area another unit of the season has taken (booked, held or in a status).
local function areaUse(position, label)
  local other = eventState(position)
  cleanExpiredAreaHolds(other)
  local area = decodeArea(record(other, label))
  return area.nonFree + area.held
end

-- Places of the area its season keeps from this unit (docs/seasons.md, "Rules"): what the
-- `sum` units took, plus the fullest of the `groups` (on a season: the event that sold the
-- most, with its partial seasons), plus what the season's events keep off sale.
local function seasonAreaTaken(state, label)
  local season = state.season
  if not season then return 0 end
  local taken = tonumber(ownSaleField(state, 'e:', label)) or 0
  for _, p in ipairs(season.sum) do taken = taken + areaUse(p, label) end
  local most = 0
  for _, group in ipairs(season.groups) do
    local inGroup = 0
    for _, p in ipairs(group) do inGroup = inGroup + areaUse(p, label) end
    if inGroup > most then most = inGroup end
  end
  return taken + most
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

-- `item.q` places of the area `item.l` of capacity `item.c`.
local function changeArea(state, change, item)
  local label = item.l
  local capacity = item.c
  cleanExpiredAreaHolds(state)
  local area = decodeArea(record(state, label))
  local full = area.nonFree + area.held >= capacity
  local current = full and area.status or FREE
  local allotted, total = allotments(state, label)
  local parts = usableParts(state, change, label, allotted, false)
  if not parts then return end
  if not guard(change, label, current) then return end
  -- What the season keeps from this unit is off sale here, as far as free places go.
  local notForSale = (tonumber(saleField(state, 'n:', label)) or 0) + seasonAreaTaken(state, label)
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
