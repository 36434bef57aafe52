// The lean reference's one Redis function (bench/reference/server.ts calls it for every
// booking; bench/statusPhases.ts times it beside the status function): two seats checked and
// written all or nothing, one history entry, a request record.

export const LIBRARY = 'bench_reference';
export const FUNCTION = 'bench_reference_book';
// KEYS: objects hash, history stream, request record. ARGV: now (ms), how long the record is
// kept (ms), then the labels. Answers 1, or {0, label} for the first object not free.
export const LUA = `#!lua name=${LIBRARY}
redis.register_function('${FUNCTION}', function(keys, args)
  local earlier = redis.call('GET', keys[3])
  if earlier then return tonumber(earlier) end
  local n = #args
  for i = 3, n do
    if redis.call('HEXISTS', keys[1], args[i]) == 1 then return { 0, args[i] } end
  end
  local fields = {}
  for i = 3, n do
    fields[#fields + 1] = args[i]
    fields[#fields + 1] = 'b'
  end
  redis.call('HSET', keys[1], unpack(fields))
  redis.call('XADD', keys[2], '*', 't', args[1], 's', 'booked', 'o', table.concat(args, ',', 3))
  redis.call('SET', keys[3], '1', 'PX', args[2])
  return 1
end)
`;

