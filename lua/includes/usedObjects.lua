-- The objects an event used in a month (billing), read by src/inventory/usedObjects.ts.
-- The labels are spread over bucket keys, label -> '' each, by a hash of the label that the
-- caller computes (src/domain/usedBuckets.ts); a bucket holds a few dozen labels, so Redis
-- keeps it as a compact listpack, much smaller per label than a set. One more hash counts
-- them: `n` labels in `b` buckets (docs/redis-layout.md, "Used objects").
-- Needs: KEYS (the bucket keys).
--#include calls.lua

-- Adds the labels to their buckets. `buckets`: {{index of the bucket key in KEYS, {label, ...}}, ...}.
-- Returns true when this call made the first use of the event in the month.
local function addUsedObjects(countKey, buckets, bucketCount)
  local added = 0
  for _, bucket in ipairs(buckets) do
    local fields = {}
    for _, label in ipairs(bucket[2]) do
      fields[#fields + 1] = label
      fields[#fields + 1] = ''
    end
    added = added + callChunked('HSET', KEYS[bucket[1]], fields)
  end
  if added == 0 then return false end
  -- The count starts at what this call added only when nothing was counted before.
  if redis.call('HINCRBY', countKey, 'n', added) ~= added then return false end
  redis.call('HSET', countKey, 'b', bucketCount)
  return true
end
