-- A request applied at most once (docs/faults.md, "Exactly once"). After a lost
-- connection the server sends the same call again, with the same record key and id; a call
-- that succeeded left its reply in that hash under its id for a short time, so the repeat
-- answers with it instead of applying the request twice. The hash holds the replies of one
-- server process's calls on the event in a tenth of a second (src/inventory/atMostOnce.ts),
-- and lives a few seconds past its last reply. And a call that reaches Redis after the request's
-- deadline does nothing: the server has answered its client by then. The deadline is read
-- from Redis's own clock, the one exception to "time comes in as an argument": it must be
-- the clock of the machine that would apply the change.
-- Needs: KEYS[#KEYS] the record key; ARGV (statusContract.lua): the deadline (ms, Redis
-- clock), how long the record hash is kept from this call on (ms; '' to leave its expiry as
-- it is), 1 when this call was sent before (call ids are
-- new for every request, so only a repeat can find a record: a first send does not look),
-- the call's id; `batch` (change-object-status.lua) when the call is one request of a batch.
-- In a batch (runBatch) Redis's clock is read once for all its requests, and the replies to
-- keep are written with one HSET at its end (keepRecords): each request keeps its own field.
--#include statusContract.lua

-- The request's record key: the call's last key.
local function recordKey()
  return KEYS[#KEYS]
end

-- The reply of an earlier run of this very request, or nil.
local function earlierReply()
  if ARGV[ARG_SENT_BEFORE] ~= '1' then return nil end
  local stored = redis.call('HGET', recordKey(), ARGV[ARG_RECORD_ID])
  if stored then return cjson.decode(stored) end
  return nil
end

-- Redis's clock, ms.
local function redisTimeMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local function pastDeadline()
  local ms
  if batch then
    ms = batch.timeMs or redisTimeMs()
    batch.timeMs = ms
  else
    ms = redisTimeMs()
  end
  return ms > tonumber(ARGV[ARG_DEADLINE])
end

-- Keeps a successful reply for repeats of the request, and returns it. The hash's expiry is
-- set by the calls the server sends a time to keep with: those of its window until one of
-- them was applied (src/inventory/atMostOnce.ts, RecordHash); the others leave it as it is.
local function remember(reply)
  local key = recordKey()
  local keep = ARGV[ARG_KEEP_MS]
  if batch then
    local records = batch.records
    records[#records + 1] = ARGV[ARG_RECORD_ID]
    records[#records + 1] = cjson.encode(reply)
    if keep ~= '' then batch.keepMs = keep end
    return reply
  end
  redis.call('HSET', key, ARGV[ARG_RECORD_ID], cjson.encode(reply))
  if keep ~= '' then redis.call('PEXPIRE', key, keep) end
  return reply
end

-- A batch's replies to keep, in one HSET (the batch's requests share the record key: one
-- event, one process, one window), and the hash's expiry once if a request carried one.
local function keepRecords(key)
  local records = batch.records
  if #records == 0 then return end
  redis.call('HSET', key, unpack(records))
  if batch.keepMs then redis.call('PEXPIRE', key, batch.keepMs) end
end
