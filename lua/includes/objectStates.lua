-- The format of object states as stored in an event's `objects` hash, and of GA holds:
-- decoded and encoded the same way by every script (src/domain/objectStates.ts reads the
-- same format; docs/redis-layout.md describes it). Fields are joined by SEP, trailing empty
-- ones dropped, so a plain booked seat costs the six bytes of "booked".
--   seat, table, booth: status, holdToken, orderId, ticketType, previous
--     (previous = 'resale' when the object was resale before it was held or booked, so
--      release and hold expiry return it there)
--   GA area:            nonFree, held, status, then per channel: channel, booked, held
--     (nonFree = places booked or in a custom status; held = places held, counting holds
--      not yet cleaned up; status = the last status set, shown once the area is full;
--      the per-channel counts are the part of nonFree and held taken from places the
--      event assigned to that channel (channel areaPlaces))
-- A GA hold (gaHolds hash, field `<label>SEP<token>`): channel, ticketType, places, ...
-- repeated; channel '' is the area's places outside any channel.
--#include constants.lua
--#include split.lua

-- What an object without a record decodes to: one shared table, never changed (only a held
-- object's decoding is changed, by currentObject.lua), so a free seat costs no table.
local FREE_OBJECT = { status = FREE, token = '', orderId = '', ticketType = '', previous = '', listing = '' }

local function decodeObject(record)
  if not record then return FREE_OBJECT end
  local f = split(record, SEP)
  return { status = f[1], token = f[2] or '', orderId = f[3] or '', ticketType = f[4] or '', previous = f[5] or '', listing = f[6] or '' }
end

-- Joined with .. up to the last non-empty field: every booking encodes its objects, and this
-- makes no table for it.
local function encodeObject(o)
  local s = o.status
  if o.listing ~= '' then return s .. SEP .. o.token .. SEP .. o.orderId .. SEP .. o.ticketType .. SEP .. o.previous .. SEP .. o.listing end
  if o.previous ~= '' then return s .. SEP .. o.token .. SEP .. o.orderId .. SEP .. o.ticketType .. SEP .. o.previous end
  if o.ticketType ~= '' then return s .. SEP .. o.token .. SEP .. o.orderId .. SEP .. o.ticketType end
  if o.orderId ~= '' then return s .. SEP .. o.token .. SEP .. o.orderId end
  if o.token ~= '' then return s .. SEP .. o.token end
  return s
end

local function decodeArea(record)
  local area = { nonFree = 0, held = 0, status = FREE, channels = {} }
  if not record then return area end
  local f = split(record, SEP)
  area.nonFree = tonumber(f[1]) or 0
  area.held = tonumber(f[2]) or 0
  area.status = f[3] or FREE
  local i = 4
  while f[i] and f[i] ~= '' do
    area.channels[f[i]] = { booked = tonumber(f[i + 1]) or 0, held = tonumber(f[i + 2]) or 0 }
    i = i + 3
  end
  return area
end

local function encodeArea(a)
  local fields = { tostring(a.nonFree), tostring(a.held), a.status }
  for channel, use in pairs(a.channels) do
    if use.booked > 0 or use.held > 0 then
      fields[#fields + 1] = channel
      fields[#fields + 1] = tostring(use.booked)
      fields[#fields + 1] = tostring(use.held)
    end
  end
  return table.concat(fields, SEP)
end

-- A GA hold's field: `<label>\31<token>` (also the member of the hold expiry zset).
local function holdMember(label, token)
  return label .. SEP .. token
end

local function holdMemberLabel(member)
  return string.sub(member, 1, string.find(member, SEP, 1, true) - 1)
end

local function decodeHold(entry)
  local parts = {}
  if not entry then return parts end
  local f = split(entry, SEP)
  for i = 1, #f - 2, 3 do
    local places = tonumber(f[i + 2]) or 0
    if places > 0 then parts[#parts + 1] = { channel = f[i], ticketType = f[i + 1], places = places } end
  end
  return parts
end

local function encodeHold(parts)
  local fields = {}
  for _, part in ipairs(parts) do
    if part.places > 0 then
      fields[#fields + 1] = part.channel
      fields[#fields + 1] = part.ticketType
      fields[#fields + 1] = tostring(part.places)
    end
  end
  if #fields == 0 then return nil end
  return table.concat(fields, SEP)
end

local function holdMemberToken(member)
  return string.sub(member, string.find(member, SEP, 1, true) + 1)
end

-- The token holding a seat, table or booth, from its record; nil when it is not held.
local HELD_PREFIX = HELD .. SEP
local function heldToken(record)
  if not record or string.sub(record, 1, #HELD_PREFIX) ~= HELD_PREFIX then return nil end
  local stop = string.find(record, SEP, #HELD_PREFIX + 1, true)
  return string.sub(record, #HELD_PREFIX + 1, stop and stop - 1 or -1)
end

-- A hold token's entry in an event's holdTokens hash: its expiry in this event (ms), then
-- the labels of the seats, tables, booths and GA areas it holds there, `expiry SEP label
-- SEP label ...`. The hold expiry job releases those labels; an entry holding nothing is
-- not kept (docs/hold-expiry.md).
local function decodeTokenEntry(value)
  local f = split(value, SEP)
  local entry = { expiry = tonumber(f[1]) or 0, labels = {}, count = 0 }
  for i = 2, #f do
    if f[i] ~= '' and not entry.labels[f[i]] then
      entry.labels[f[i]] = true
      entry.count = entry.count + 1
    end
  end
  -- What the entry held when read, to tell when the token starts or stops holding here.
  entry.held = entry.count
  return entry
end

-- The entry of a token that holds nothing in the event yet, expiring at `expiry`.
local function newTokenEntry(expiry)
  return { expiry = expiry, labels = {}, count = 0, held = 0 }
end

-- Notes in a token's entry whether it holds `label`; false when that is what the entry said.
local function holdInEntry(entry, label, holds)
  if (entry.labels[label] ~= nil) == holds then return false end
  entry.labels[label] = holds or nil
  entry.count = entry.count + (holds and 1 or -1)
  return true
end

-- Where the labels of a token's entry start (its first SEP), or nil when it holds nothing:
-- for scripts that keep the labels as they are (retime-hold-token-2.lua) or only ask
-- whether there are any (drop-idle-hold-token-1.lua), without decoding the entry.
local function tokenEntryLabelsAt(entry)
  return string.find(entry, SEP, 1, true)
end

local function encodeTokenEntry(entry)
  local fields = { string.format('%d', entry.expiry) }
  for label in pairs(entry.labels) do fields[#fields + 1] = label end
  return table.concat(fields, SEP)
end
