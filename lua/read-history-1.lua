-- Reads the oldest entries of an event's history stream (lua/includes/history.lua) as one
-- text, for the drain (src/jobs/historyDrain.ts): Redis joins them, so the drain receives
-- one string per batch instead of three per entry.
--
-- KEYS[1]  the event's history stream
-- ARGV[1]  how many entries at most
-- Returns  {} when the stream is empty, else {first, last, entries}: the numbers of the
--          first and last entry read (ids 0-<n>, numbered without gaps) and their `c`
--          fields joined by RS (U+001E)

local page = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', ARGV[1])
if #page == 0 then return {} end
local texts = {}
for i, entry in ipairs(page) do texts[i] = entry[2][2] end
local number = function(id) return tonumber(string.sub(id, 3)) end
return { number(page[1][1]), number(page[#page][1]), table.concat(texts, '\30') }
