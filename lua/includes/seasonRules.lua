-- The season rules for a seat, table or booth (docs/seasons.md, "Rules"): an object taken
-- by one unit of a season (the season, a partial season, an event) is unavailable in the
-- units whose scope names it, unless the event overrides its season's status. And the two
-- changes that set or drop such an override.
-- request.seasons[e] of a unit that is being changed names its scope as positions of
-- units in KEYS: `sum` (each counts) and `groups` (each member counts); `top` marks the
-- top-level season, which first asks the season's count of stored records (eventState.lua,
-- writeBack) and reads the events' records only for objects some unit has a record of.
-- Needs: now (ms).
--#include constants.lua
--#include eventState.lua
--#include currentObject.lua
--#include failures.lua

-- Whether the season's make-up changed since the caller planned this unit's change (the
-- units it names may no longer be all it must be checked against): the caller replans.
-- `season`: the unit's part of request.seasons, or nil outside seasons.
local function seasonChanged(season)
  return season ~= nil and (redis.call('GET', KEYS[season.vk]) or '0') ~= season.ver
end

-- Every unit a scope names, listed once per call.
local function scopeUnits(season)
  if season.units then return season.units end
  local units = {}
  for _, p in ipairs(season.sum) do units[#units + 1] = p end
  for _, group in ipairs(season.groups) do
    for _, p in ipairs(group) do units[#units + 1] = p end
  end
  season.units = units
  return units
end

-- The first status another unit gives the object among `units` (only those this call has
-- read already, when `loadedOnly`), or nil.
local function takenAmong(units, label, loadedOnly)
  for _, p in ipairs(units) do
    if not loadedOnly or call.events[p] then
      local status = currentObject(eventState(p), label).status
      if status ~= FREE then return status end
    end
  end
  return nil
end

-- What seasonConflict answers when the call left the season's units out (`lite`, a single
-- change on the season) and one of them has a record of the object: the caller calls again
-- with every unit.
local UNITS_NEEDED = {}

-- The status that keeps the object from being taken in this unit, or nil (or UNITS_NEEDED).
local function seasonConflict(state, label)
  local season = state.season
  if not season or overridden(state, label) then return nil end
  local units = scopeUnits(season)
  if season.top and (tonumber(redis.call('HGET', KEYS[season.use], label)) or 0) == 0 then
    -- No unit has a record of it in Redis: only a change earlier in this call can have taken it.
    return takenAmong(units, label, true)
  end
  if season.lite then return UNITS_NEEDED end
  return takenAmong(units, label, false)
end

-- override-season-status and use-season-status of an event in a season. Dropping an
-- override gives the object back to the season, so the event's own copy must be free.
local function changeSeasonStatus(state, change, item)
  local label = item.l
  if change.op == 'override' then return setOverridden(state, label, true) end
  local own = currentObject(state, label).status
  if overridden(state, label) and own ~= FREE then return fail('OBJECT_NOT_FREE', label, own) end
  setOverridden(state, label, false)
end
