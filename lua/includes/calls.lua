-- Commands with many arguments, cut in chunks: unpack() runs out of stack at a few
-- thousand values, and a batch may name 100,000 objects.

local CHUNK = 500 -- even, so field/value pairs never straddle two chunks

-- Returns the sum of the replies (what HSET and HDEL count).
local function callChunked(command, key, args)
  local total = 0
  for i = 1, #args, CHUNK do
    total = total + redis.call(command, key, unpack(args, i, math.min(i + CHUNK - 1, #args)))
  end
  return total
end
