-- The channel rule (docs/seatsio-behaviour.md, "Channels"), one for seats, tables, booths
-- and GA areas alike. An object may be in a channel as a whole (sale config field
-- `c:<label>`); a GA area may also have places assigned to channels (`a:<label>`, its
-- allotments). A request may name channels (channelKeys, with NO_CHANNEL for what is in
-- none) or ignore them.
--#include objectStates.lua
--#include split.lua
--#include eventState.lua
--#include failures.lua

local function contains(list, value)
  if not list then return false end
  for _, item in ipairs(list) do
    if item == value then return true end
  end
  return false
end

-- The places an event assigned to channels in an area (channel areaPlaces): {channel = n}, total.
local function allotments(state, label)
  local allotted, total = {}, 0
  local field = saleField(state, 'a:', label)
  if field then
    local f = split(field, SEP)
    for i = 1, #f - 1, 2 do
      local places = tonumber(f[i + 1]) or 0
      allotted[f[i]] = places
      total = total + places
    end
  end
  return allotted, total
end

local NO_ALLOTMENTS = {}
-- The parts when only the places outside any channel may be used; shared, never changed.
local OUTSIDE_CHANNELS = { '' }

-- The parts of an object a request may use, in the order they are used: the channels it
-- names that have places here, then the places outside any channel ('') when allowed.
-- A seat has no allotments, so for it this is {''} or a failure. `exempt`: the object is
-- open to every channel (a resale seat). Returns nil after recording the failure: an
-- object that fails the channel rule gets that one error and no further checks.
local function usableParts(state, change, label, allotted, exempt)
  if change.ignoreChannels or exempt then
    if next(allotted) == nil then return OUTSIDE_CHANNELS end
    local parts = { '' }
    for channel in pairs(allotted) do parts[#parts + 1] = channel end
    return parts
  end
  local whole = saleField(state, 'c:', label)
  if whole then
    if not contains(change.channels, whole) then fail('OBJECT_IN_CHANNEL', label, whole) return nil end
    return OUTSIDE_CHANNELS
  end
  if not change.channels then return OUTSIDE_CHANNELS end
  local parts = {}
  for _, channel in ipairs(change.channels) do
    if allotted[channel] then parts[#parts + 1] = channel end
  end
  if contains(change.channels, 'NO_CHANNEL') then parts[#parts + 1] = '' end
  if #parts == 0 then fail('OBJECT_NOT_IN_CHANNEL', label, '') return nil end
  return parts
end
