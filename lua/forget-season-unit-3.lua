-- Takes a unit of a season (an event marked as past, or a partial season or event about to
-- be deleted) out of its season's count of stored records (includes/eventState.lua,
-- writeBack), once: the season no longer has to look at that unit's objects, so its
-- bookings of them stay on the fast path (docs/seasons.md, "How it stays one script call").
-- A past event cannot change any more, so its records are final.
--
-- KEYS[1]  the unit's objects hash
-- KEYS[2]  the season's seasonUse hash
-- KEYS[3]  the season's set of units already taken out (seasonForgotten)
-- ARGV[1]  the unit's id
-- Returns  the number of objects taken out of the count (0 when the unit was already out)

if redis.call('SADD', KEYS[3], ARGV[1]) == 0 then return 0 end
local labels = redis.call('HKEYS', KEYS[1])
for _, label in ipairs(labels) do
  if redis.call('HINCRBY', KEYS[2], label, -1) <= 0 then redis.call('HDEL', KEYS[2], label) end
end
return #labels
