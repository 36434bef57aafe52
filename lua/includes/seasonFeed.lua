-- Appends an entry to a season's feed (docs/status-stream.md, "Seasons"): one stream for all
-- the units of a season, which the live status stream of the season's events follows. Each
-- entry carries the history entry's text as its unit wrote it (`c`), the unit's id (`e`) and,
-- for an event's override-season-status or use-season-status, its kind (`k`: `o` or `s`).
-- The feed keeps about SEASON_FEED_LENGTH entries (trimmed in whole nodes, MAXLEN ~).
--#include constants.lua

local function addToFeed(feed, entry, unitId, kind)
  if kind then
    redis.call('XADD', feed, 'MAXLEN', '~', SEASON_FEED_LENGTH, '0-*', 'c', entry, 'e', unitId, 'k', kind)
  else
    redis.call('XADD', feed, 'MAXLEN', '~', SEASON_FEED_LENGTH, '0-*', 'c', entry, 'e', unitId)
  end
end
