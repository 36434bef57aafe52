-- Changes when a hold token expires, atomically with the checks that make it safe:
-- the token must exist in the caller's workspace and must not have expired yet (an
-- expired token is never revived), and its total life stays within the maximum.
--
-- KEYS[1]  the hold token record (hash: workspaceId, createdAt, expiresAt; ms epoch)
-- KEYS[2]  the key that lives until the token expires (docs/hold-expiry.md)
-- ARGV[1]  workspace id of the caller
-- ARGV[2]  now (ms epoch), passed in so the script is a pure function of its inputs
-- ARGV[3]  requested expiry (ms epoch)
-- ARGV[4]  maximum total life of a token (ms)
-- ARGV[5]  how long the record is kept after the maximum life (ms)
-- Returns {1, createdAt, expiresAt} on success,
--         {0} unknown or expired token, {-1, latestAllowedExpiry} beyond the maximum life.

local token = redis.call('HMGET', KEYS[1], 'workspaceId', 'createdAt', 'expiresAt')
if not token[1] or token[1] ~= ARGV[1] then
  return {0}
end
local now = tonumber(ARGV[2])
if tonumber(token[3]) <= now then
  return {0}
end
local createdAt = tonumber(token[2])
local latest = createdAt + tonumber(ARGV[4])
local requested = tonumber(ARGV[3])
if requested > latest then
  return {-1, latest}
end
redis.call('HSET', KEYS[1], 'expiresAt', requested)
redis.call('PEXPIREAT', KEYS[1], latest + tonumber(ARGV[5]))
if requested > now then redis.call('SET', KEYS[2], '1', 'PXAT', requested) else redis.call('DEL', KEYS[2]) end
return {1, createdAt, requested}
