-- A text cut at a separator into its parts, empty ones kept: stored records and holds at
-- SEP (objectStates.lua, channelRule.lua), the drain's joined labels at RS
-- (count-used-objects.lua).

local function split(text, separator)
  local parts = {}
  local start = 1
  while true do
    local stop = string.find(text, separator, start, true)
    if not stop then
      parts[#parts + 1] = string.sub(text, start)
      return parts
    end
    parts[#parts + 1] = string.sub(text, start, stop - 1)
    start = stop + 1
  end
end
