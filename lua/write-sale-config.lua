-- Replaces an event's sale config (its channel and for-sale fields, src/domain/eventObjectRules.ts
-- saleConfigFields) and, when that changes how many places of some objects are not for sale
-- (the `n:<label>` fields), appends one entry to the event's history stream saying which, in
-- the same step: the live status stream numbers it with the status changes, so every server
-- process shows it at the same place among them (docs/status-stream.md, "For sale").
--
-- KEYS[1]  the event's sale config hash
-- KEYS[2]  the event's history stream
-- KEYS[3]  for a unit of a season: the season's feed, which gets the entry too, with the
--          unit's id (includes/seasonFeed.lua)
-- ARGV[1]  now (ms), the entry's time
-- ARGV[2]  the unit's id (for the feed; '' without one)
-- ARGV[3..] the new fields: name, value, name, value, ...
-- Returns  how many objects' places not for sale changed (0: no entry written)
--
-- The entry's `c` field (src/domain/statusChangeHistory.ts, decodeHistoryEntry): time, an
-- empty label, FOR_SALE_ENTRY, then per changed object its label and places not for sale
-- now (0: all for sale again), by label, joined by SEP.

--#include constants.lua
--#include calls.lua
--#include seasonFeed.lua

local FOR_SALE_ENTRY = '\2notForSale'
local PREFIX = 'n:'

local function notForSaleOf(flat)
  local places = {}
  for i = 1, #flat, 2 do
    if string.sub(flat[i], 1, 2) == PREFIX then places[string.sub(flat[i], 3)] = flat[i + 1] end
  end
  return places
end

local before = notForSaleOf(redis.call('HGETALL', KEYS[1]))
local fields = {}
for i = 3, #ARGV do fields[i - 2] = ARGV[i] end
local after = notForSaleOf(fields)

redis.call('DEL', KEYS[1])
callChunked('HSET', KEYS[1], fields)

local changed = {}
for label, places in pairs(after) do
  if before[label] ~= places then changed[#changed + 1] = label end
end
for label in pairs(before) do
  if after[label] == nil then changed[#changed + 1] = label end
end
if #changed == 0 then return 0 end
table.sort(changed)

local parts = { ARGV[1], '', FOR_SALE_ENTRY }
for _, label in ipairs(changed) do
  parts[#parts + 1] = label
  parts[#parts + 1] = after[label] or '0'
end
local entry = table.concat(parts, SEP)
redis.call('XADD', KEYS[2], '0-*', 'c', entry)
if KEYS[3] then addToFeed(KEYS[3], entry, ARGV[2]) end
return #changed
