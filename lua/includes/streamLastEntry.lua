-- The number of the last entry ever added to a history stream, 0 if it has none: after the
-- drain trimmed every stored entry the stream is empty, and only its last-generated-id
-- tells how far it went (docs/status-stream.md, "Across processes"). Entry ids are 0-<n>
-- (historyEntries.lua).

local function streamLastEntry(stream)
  if redis.call('EXISTS', stream) == 0 then return 0 end
  local info = redis.call('XINFO', 'STREAM', stream)
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then return tonumber(string.match(info[i + 1], '^0%-(%d+)$')) or 0 end
  end
  return 0
end
