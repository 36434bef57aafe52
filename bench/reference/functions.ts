// The lean reference's Redis functions (bench/reference/server.ts calls them; bench/statusPhases.ts
// times the booking beside the status function): two seats checked and written all or nothing,
// one history entry, a request record. The booking takes free seats; the release gives back
// booked ones, the same steps on the same keys, so the two cost Redis about the same: what a
// release churn costs against a booking where nothing else is in the way. The booking in an
// event of a season also checks that the season has not booked the seats and marks them taken
// in the season (a count per seat, which a booking of the season would check), in the season's
// one hash: the least the season's rule adds, both ways, in one call (docs/performance.md,
// "The lean reference").

export const LIBRARY = 'bench_reference';
export const BOOK_FUNCTION = 'bench_reference_book';
export const RELEASE_FUNCTION = 'bench_reference_release';
export const SEASON_EVENT_BOOK_FUNCTION = 'bench_reference_season_event_book';
// The first two take KEYS: objects hash, history stream, request record; ARGV: now (ms), how
// long the record is kept (ms), then the labels. Both answer 1, or {0, label} for the first
// object not free (booking) or not booked (release). The season event's booking takes the
// season's hash as a fourth key (its seats booked on the season: label -> 'b'; its seats taken
// in its events: '#' .. label -> count).
export const LUA = `#!lua name=${LIBRARY}
-- The reply of an earlier run of this request (its record), or nil.
local function earlier(record)
  local reply = redis.call('GET', record)
  if reply then return tonumber(reply) end
end

-- The first of the labels (args[3..]) the objects hash has, or nil.
local function firstTaken(objects, args)
  for i = 3, #args do
    if redis.call('HEXISTS', objects, args[i]) == 1 then return args[i] end
  end
end

-- The call's history entry (the labels now in \`status\`) and its request record.
local function finish(keys, args, status)
  redis.call('XADD', keys[2], '*', 't', args[1], 's', status, 'o', table.concat(args, ',', 3))
  redis.call('SET', keys[3], '1', 'PX', args[2])
  return 1
end

-- The labels booked, then finished.
local function book(keys, args)
  local fields = {}
  for i = 3, #args do
    fields[#fields + 1] = args[i]
    fields[#fields + 1] = 'b'
  end
  redis.call('HSET', keys[1], unpack(fields))
  return finish(keys, args, 'booked')
end

redis.register_function('${BOOK_FUNCTION}', function(keys, args)
  local reply = earlier(keys[3])
  if reply then return reply end
  local taken = firstTaken(keys[1], args)
  if taken then return { 0, taken } end
  return book(keys, args)
end)

redis.register_function('${RELEASE_FUNCTION}', function(keys, args)
  local reply = earlier(keys[3])
  if reply then return reply end
  for i = 3, #args do
    if redis.call('HGET', keys[1], args[i]) ~= 'b' then return { 0, args[i] } end
  end
  redis.call('HDEL', keys[1], unpack(args, 3, #args))
  return finish(keys, args, 'free')
end)

redis.register_function('${SEASON_EVENT_BOOK_FUNCTION}', function(keys, args)
  local reply = earlier(keys[3])
  if reply then return reply end
  local taken = firstTaken(keys[1], args)
  if taken then return { 0, taken } end
  local onSeason = redis.call('HMGET', keys[4], unpack(args, 3, #args))
  for i = 3, #args do
    if onSeason[i - 2] then return { 0, args[i] } end
  end
  for i = 3, #args do redis.call('HINCRBY', keys[4], '#' .. args[i], 1) end
  return book(keys, args)
end)
`;
