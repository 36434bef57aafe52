-- Moves the expiry of a hold token within one event, after the token's own expiry changed
-- (POST /hold-tokens/{token}): the scripts read a token's expiry from the event's
-- holdTokens hash and GA holds from the expiry zset, so both follow the token.
--
-- KEYS[1]  the event's holdTokens hash (token -> expiry, then the labels it holds here)
-- KEYS[2]  the event's gaHoldExpiry zset (`<label>\31<token>` scored by expiry)
-- ARGV[1]  the token
-- ARGV[2]  its new expiry (ms epoch)
-- Returns  the number of GA holds moved

--#include constants.lua
--#include objectStates.lua

-- Set even where the token holds nothing yet: a hold whose caller read the old expiry
-- and runs after this keeps the event's entry (see holdExpiry in includes/eventState.lua).
-- The labels the token holds here stay as they are. An entry left holding nothing is
-- dropped by lua/drop-idle-hold-token-1.lua.
local entry = redis.call('HGET', KEYS[1], ARGV[1])
local labels = entry and tokenEntryLabelsAt(entry)
redis.call('HSET', KEYS[1], ARGV[1], labels and (ARGV[2] .. string.sub(entry, labels)) or ARGV[2])
local moved = 0
local cursor = '0'
repeat
  local page = redis.call('ZSCAN', KEYS[2], cursor, 'MATCH', holdMember('*', ARGV[1]), 'COUNT', 1000)
  cursor = page[1]
  for i = 1, #page[2], 2 do
    redis.call('ZADD', KEYS[2], 'XX', ARGV[2], page[2][i])
    moved = moved + 1
  end
until cursor == '0'
return moved
