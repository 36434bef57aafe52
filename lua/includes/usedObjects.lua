-- The objects an event used in a month (billing). A hash: field '#' counts the labels; the
-- labels are spread over bucket fields (src/inventory/usage.ts picks each label's bucket and
-- reads them back), each bucket's value holding its labels between separators
-- (`\31A-1\31A-7\31`). A set of labels costs about 64 bytes per label in Redis; a hash of
-- 1,024 buckets costs about 11 once an event used many objects, and stays a small listpack
-- while it used a few.

local USED_COUNT = '#'

-- Adds the labels not in the hash yet. `buckets`: {{bucket, {label, ...}}, ...}.
-- Returns true when this call created the hash (the event's first use in the month).
local function addUsedObjects(key, buckets)
  local fields = {}
  for i, entry in ipairs(buckets) do fields[i] = entry[1] end
  local values = hmget(key, fields)
  local writes, added = {}, 0
  for i, entry in ipairs(buckets) do
    local value = values[i] or '\31'
    local grown = false
    for _, label in ipairs(entry[2]) do
      if not string.find(value, '\31' .. label .. '\31', 1, true) then
        value = value .. label .. '\31'
        added = added + 1
        grown = true
      end
    end
    if grown then
      writes[#writes + 1] = entry[1]
      writes[#writes + 1] = value
    end
  end
  if added == 0 then return false end
  callChunked('HSET', key, writes)
  -- The count starts at what this call added only if the hash did not exist before.
  return redis.call('HINCRBY', key, USED_COUNT, added) == added
end
