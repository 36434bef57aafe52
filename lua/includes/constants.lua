-- Statuses and the separators every script shares. src/domain/objectStates.ts holds
-- the same values on the TypeScript side; keep the two in step (test/integration/
-- luaScripts.test.ts decodes what the scripts write with the TypeScript decoders).

local HELD = 'reservedByToken'
local FREE = 'free'
local RESALE = 'resale'
-- The origin of a change that does not name one: made by an API call (docs/history.md).
local API_CALL = 'API_CALL'
-- Joins the fields of a stored record and a GA hold's `<label>SEP<token>` (unit separator).
local SEP = '\31'
-- Joins the changes of one history entry (historyEntries.lua), and the labels of a bucket key
-- in the drain's count (count-used-objects.lua) (record separator; ENTRY_SEPARATOR there).
local RS = '\30'
-- Entries a season's feed keeps at least (src/inventory/eventKeys.ts, SEASON_FEED_LENGTH;
-- includes/seasonFeed.lua).
local SEASON_FEED_LENGTH = '20000'
