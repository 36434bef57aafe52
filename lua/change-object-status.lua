-- Books, holds, releases or sets a custom status on objects of one or more events, all or
-- nothing: every object of every change is checked first (in request order, each change
-- seeing the ones before it), and only if all pass is anything written. One call serves
-- book, hold, release, change-object-status, event groups and batches.
--
-- The call's keys and arguments are declared in src/inventory/statusContract.ts, which
-- makes the include statusContract.lua (KEYS_PER_EVENT, EVENT_KEY_<NAME>, ARG_<NAME>):
-- KEYS     per event its keys (EVENT_KEY_*). The events changed come first, then the other
--          units of their seasons the changes are checked against; after every event's keys,
--          the seasons' keys (count of stored records, overrides); last, the request's record
--          key (includes/requestRecord.lua)
-- ARGV     now (ms epoch: holds whose token expired by then count as free), the request,
--          the deadline, how long the record hash is kept ('' for as it is), whether the call was sent before
--          (includes/requestRecord.lua); the request is JSON, as src/inventory/statusChanges.ts
--          builds it, or empty for a plain call, whose change follows as positional
--          arguments (includes/plainRequest.lua reads them into the same table):
--          { changes: [ { e, op, status, token?, tokenExpiry?, orderId?, listing?, keep?, channels?,
--                         ignoreChannels?, allowed?, rejected?, u?, objects: [ {l, q?, c?, t?, x?} ] } ],
--            expand?, seasons?, origin?, ip? }
--            (a flag that is absent is off)
--            e: the event's position (1-based) among the events of KEYS
--            op: 'book' | 'hold' | 'release' | 'status', or 'override' / 'useSeason' (an event
--                of a season sets or drops its own copy of its season's status), or 'expire'
--                (what the expired `token` still holds in the event is given back; no
--                objects: the event's entry for the token lists them); status: the
--                status to set
--            token: the request's hold token; tokenExpiry: its expiry (ms), for holds
--            orderId: stored with the object; listing: the resale listing id (status changes)
--            keep: keep extra data not given anew
--            channels: channelKeys; ignoreChannels; allowed / rejected: previous-status guards
--            u: for a change whose objects count as used (billing), the usage mark its
--               history entries carry for the drain (includes/historyEntries.lua)
--            objects: l label; q places (GA areas only: q > 0 marks an area); c the area's
--            capacity (areas); t ticket type; x extra data as JSON text
--            expand: answer with each change's objects
--            origin: what made the change, for the history (API_CALL when absent; HOLD_EXPIRED);
--            ip: the caller's address (includes/history.lua)
--            seasons: per position (as a string) of a unit of a season a change is made on:
--                  { use, vk, ver, nfs, sum, groups, ov?, top?, lite?, fb? } (includes/eventState.lua and
--                  seasonRules.lua say what each is; src/inventory/statusChanges.ts builds it)
-- Returns  {-1} when the deadline has passed (nothing written),
--          {0, {'HOLD_TOKEN_UNCHECKED', '', ''}} when a plain call's unchecked token has no
--          unexpired entry in the event, {0, {'HOLD_TOKEN_REFUSED', '', ''}} when a plain
--          hold's token to check may not hold (nothing written either way; includes/tokenCheck.lua),
--          {0, {code, label, detail}, ...} when any check fails (nothing written),
--          1 when applied with nothing more to tell (no expand, no holding changes), or
--          {1, results JSON or false, {e, token, 1|0, ...}[, token expiry]}
--          where results (with expand) lists per change per object {record, extra} as
--          they were right after that change (a batch may change one object twice),
--          the list names the tokens that started (1) or stopped (0) holding
--          something in an event (includes/eventState.lua, writeBack), and the expiry is
--          that of a hold's token the call checked (includes/tokenCheck.lua).

--
-- Loaded as a Redis function (FUNCTION LOAD; src/inventory/scripts.ts adds the library
-- header and registers `run` below as `change_object_status_<version>`): the includes'
-- functions are made once when the library loads, not on every call. So what a call keeps
-- is set afresh by `run` first thing: the five locals below, all at once, and every
-- per-call table in `call` (includes/callState.lua). The includes come in the order they
-- need each other (src/inventory/luaSource.ts), all below these locals. `batch` is set by
-- runBatch (below) while it runs the requests of a batch, else nil.

local KEYS, ARGV, now, nowText, request, batch

--#include statusContract.lua
--#include requestRecord.lua
--#include plainRequest.lua
--#include tokenCheck.lua
--#include seatRules.lua
--#include areaRules.lua
--#include expiredHolds.lua
--#include history.lua
--#include plainChanges.lua

-- With expand: each change's objects as they stand right after that change.
local function snapshot(state, change)
  local objects = {}
  for j, item in ipairs(change.objects) do
    objects[j] = { record(state, item.l) or '', extraData(state, item.l) }
  end
  return objects
end

local function run(keys, args)
  -- now as text for the history entries: one string for all of them.
  KEYS, ARGV, now, nowText, request = keys, args, tonumber(args[ARG_NOW]), args[ARG_NOW], nil
  call = newCall()

  -- A repeat of a request that already ran answers as the first run did.
  local earlier = earlierReply()
  if earlier then return earlier end
  if pastDeadline() then return { -1 } end

  -- Most calls book free seats or release booked ones: written at once (plainChanges.lua).
  -- A plain call sends its change as positional arguments and no request text; the table
  -- of its request is made only when it goes the general way.
  local plain, hasSaleConfig, seasons
  local text = ARGV[ARG_REQUEST]
  if text == '' then
    -- A booking's token the server left to the event's entry, a hold's to the token's
    -- record (tokenCheck.lua).
    if tokenRefused() then return { 0, call.errors[1] } end
    seasons = seasonsArgument()
    plain, hasSaleConfig = plainArgsChanges(seasons)
  else
    request = cjson.decode(text)
    plain, hasSaleConfig = plainChanges()
  end
  if plain then return plain end
  -- The general way reads the objects itself and may write extra data: a batch's pending plain
  -- writes are made first, and its plain requests ask EXISTS again (plainChanges.lua).
  if batch then
    writePendingObjects()
    batch.plainExists = false
  end
  request = request or plainRequest(seasons)
  -- The plain way found the event's sale config: the general way need not ask again
  -- (eventState.lua, ownSaleField).
  if hasSaleConfig then eventState(1).hasSaleConfig = true end
  local errors = call.errors

  for i, change in ipairs(request.changes) do
    local state = eventState(change.e)
    -- A change planned on an old make-up of its season is not checked at all; an expiry
    -- does not depend on the season's make-up.
    local objects = change.objects
    if change.op == 'expire' then
      releaseExpiredHolds(state, change.token)
    elseif seasonChanged(state.season) then
      fail('SEASON_CHANGED', '', '')
      objects = {}
    end
    for _, item in ipairs(objects) do
      if change.op == 'override' or change.op == 'useSeason' then
        changeSeasonStatus(state, change, item)
      elseif item.q and item.q > 0 then
        changeArea(state, change, item)
      else
        changeObject(state, change, item)
      end
      if item.x or not change.keep then setExtraData(state, item.l, item.x) end
      noteHistory(state, change, item)
    end
    if request.expand and #errors == 0 then call.results[i] = snapshot(state, change) end
  end

  if #errors > 0 then
    local reply = { 0 }
    for i, e in ipairs(errors) do reply[i + 1] = e end
    return reply
  end

  for _, state in pairs(call.events) do writeBack(state) end
  writeHistory()

  return remember(appliedReply(request.expand and cjson.encode(call.results)))
end

-- A batch: the requests of one event that the server had waiting at once
-- (src/inventory/atMostOnce.ts), run one after the other in one call, each as `run` runs a
-- lone call: all or nothing, with its own reply, its own record and its own deadline, each
-- seeing what the ones before it wrote. What they share is done once for the batch
-- (docs/performance.md, "Batched calls"): Redis's clock is read once (requestRecord.lua,
-- pastDeadline), the applied requests' history entries are written at the batch's end
-- (historyEntries.lua, writeBatchHistory), their replies kept with one HSET (keepRecords), the
-- plain way's records of event 1 written with one HSET and its EXISTS asked once (plainChanges.lua).
-- KEYS     the keys every request of the batch has (its event's keys), then each request's
--          own more keys in request order (a hold's token keys, TOKEN_KEYS), last the record
--          key they share (one process, one event, one window)
-- ARGV     the number of requests, then per request: its number of more keys, its number of
--          arguments, and its arguments, as a lone call's ARGV
-- Returns  per request, in order, what `run` answers it, or {-2, message} when it failed
--          with an error (nothing else of the batch fails with it)
local function runBatch(keys, args)
  local count = tonumber(args[BATCH_ARG_COUNT])
  local recordKey = keys[#keys]
  -- The more keys of every request come after the shared keys.
  local more, at = 0, BATCH_FIRST_REQUEST
  for _ = 1, count do
    more = more + tonumber(args[at + BATCH_HEAD_MORE_KEYS])
    at = at + BATCH_HEAD_LENGTH + tonumber(args[at + BATCH_HEAD_ARG_COUNT])
  end
  local shared = #keys - 1 - more
  local replies = {}
  batch = {
    timeMs = false, keepMs = false, records = {}, noted = {}, notedKeys = {}, notedUse = {}, notedFeed = false,
    objects = false, objectsKey = false, plainExists = false,
  }
  at = BATCH_FIRST_REQUEST
  local moreAt = shared
  for i = 1, count do
    local moreCount, argCount = tonumber(args[at + BATCH_HEAD_MORE_KEYS]), tonumber(args[at + BATCH_HEAD_ARG_COUNT])
    local requestKeys = keys
    if moreCount > 0 or more > 0 then
      -- This request's keys as a lone call has them: the shared keys, its own more keys, the record key.
      requestKeys = { unpack(keys, 1, shared) }
      for j = 1, moreCount do requestKeys[shared + j] = keys[moreAt + j] end
      requestKeys[shared + moreCount + 1] = recordKey
      moreAt = moreAt + moreCount
    end
    local ok, reply = pcall(run, requestKeys, { unpack(args, at + BATCH_HEAD_LENGTH, at + BATCH_HEAD_LENGTH - 1 + argCount) })
    if not ok then
      reply = { -2, type(reply) == 'table' and tostring(reply.err) or tostring(reply) }
    end
    replies[i] = reply
    at = at + BATCH_HEAD_LENGTH + argCount
  end
  writePendingObjects()
  writeBatchHistory()
  keepRecords(recordKey)
  batch = nil
  return replies
end

-- A lone call: `run` outside any batch (a batch that failed as a whole leaves none behind).
local function runOne(keys, args)
  batch = nil
  return run(keys, args)
end
