-- The request of a plain call, read from its positional arguments (ARG_OP to ARG_SEASONS, then
-- the objects from ARG_OBJECTS; src/inventory/statusContract.ts, PLAIN_ARGS) into the table
-- its JSON would decode to: one change on event 1, made by an API call, not expanded, with
-- no parameter but a hold token; for a unit of a season, with the season's part (`seasons`,
-- the one JSON text of the call: seasonsArgument). Redis hands the arguments over as they
-- are; decoding the same change from JSON cost about 1.7 µs per call (docs/performance.md,
-- "One Lua function call per status change").
-- Needs: ARGV (run has set it).
--#include statusContract.lua

-- An optional positional argument: '' when absent, read as nil.
local function given(value)
  if value == '' then return nil end
  return value
end

-- The season's part of a plain call of a unit of a season (request.seasons), or nil.
local function seasonsArgument()
  local text = ARGV[ARG_SEASONS]
  if text == '' then return nil end
  return cjson.decode(text)
end

-- `seasons`: seasonsArgument(), decoded once by the caller.
local function plainRequest(seasons)
  local objects = {}
  if ARGV[ARG_AREAS] == '1' then
    -- label, places, capacity: places 0 for a seat, capacity '' when unknown.
    for i = ARG_OBJECTS, #ARGV, 3 do
      local places = tonumber(ARGV[i + 1])
      if places > 0 then
        objects[#objects + 1] = { l = ARGV[i], q = places, c = tonumber(ARGV[i + 2]) }
      else
        objects[#objects + 1] = { l = ARGV[i] }
      end
    end
  else
    for i = ARG_OBJECTS, #ARGV do objects[#objects + 1] = { l = ARGV[i] } end
  end
  local token = ARGV[ARG_TOKEN]
  local change = {
    e = 1, op = ARGV[ARG_OP], status = ARGV[ARG_STATUS], u = given(ARGV[ARG_USAGE]), objects = objects,
    -- A token comes after a mark, so an empty token differs from none.
    token = token ~= '' and string.sub(token, #TOKEN_MARK + 1) or nil,
    tokenExpiry = tonumber(given(ARGV[ARG_TOKEN_EXPIRY])),
  }
  return { ip = given(ARGV[ARG_IP]), changes = { change }, seasons = seasons }
end
