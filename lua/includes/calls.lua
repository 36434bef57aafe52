-- Commands with many arguments, cut in chunks: unpack() runs out of stack at a few
-- thousand values, and a batch may name 100,000 objects.

local CHUNK = 500 -- even, so field/value pairs never straddle two chunks

local function callChunked(command, key, args)
  for i = 1, #args, CHUNK do
    redis.call(command, key, unpack(args, i, math.min(i + CHUNK - 1, #args)))
  end
end

-- HMGET of any number of fields; values in the order of `fields` (false when absent).
local function hmget(key, fields)
  local values = {}
  for i = 1, #fields, CHUNK do
    local part = redis.call('HMGET', key, unpack(fields, i, math.min(i + CHUNK - 1, #fields)))
    for j = 1, #part do values[i + j - 1] = part[j] end
  end
  return values
end
