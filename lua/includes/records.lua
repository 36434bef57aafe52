-- Object records as stored in an event's `objects` hash (src/inventory/objectRecords.ts
-- reads the same format). Fields are joined by \31 (unit separator), trailing empty ones
-- dropped, so a plain booked seat costs the six bytes of "booked".
--   seat, table, booth: status, holdToken, orderId, ticketType, previous
--     (previous = 'resale' when the object was resale before it was held or booked, so
--      release and hold expiry return it there)
--   GA area:            nonFree, held, status
--     (nonFree = places booked or in a custom status; held = places held, counting holds
--      not yet cleaned up; status = the last status set, shown once the area is full)

local SEP = '\31'

local function split(record)
  local fields = {}
  local start = 1
  while true do
    local stop = string.find(record, SEP, start, true)
    if not stop then
      fields[#fields + 1] = string.sub(record, start)
      return fields
    end
    fields[#fields + 1] = string.sub(record, start, stop - 1)
    start = stop + 1
  end
end

local function join(fields, count)
  local last = count
  while last > 1 and (fields[last] == nil or fields[last] == '') do last = last - 1 end
  local parts = {}
  for i = 1, last do parts[i] = fields[i] or '' end
  return table.concat(parts, SEP)
end

local function decodeObject(record)
  if not record then return { status = 'free', token = '', orderId = '', ticketType = '', previous = '' } end
  local f = split(record)
  return { status = f[1], token = f[2] or '', orderId = f[3] or '', ticketType = f[4] or '', previous = f[5] or '' }
end

local function encodeObject(o)
  return join({ o.status, o.token, o.orderId, o.ticketType, o.previous }, 5)
end

local function decodeArea(record)
  if not record then return { nonFree = 0, held = 0, status = 'free' } end
  local f = split(record)
  return { nonFree = tonumber(f[1]) or 0, held = tonumber(f[2]) or 0, status = f[3] or 'free' }
end

local function encodeArea(a)
  return join({ tostring(a.nonFree), tostring(a.held), a.status }, 3)
end
