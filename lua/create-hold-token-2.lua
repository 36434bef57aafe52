-- Creates a hold token: its record and how long Redis keeps it, and the key whose life is
-- the token's (docs/hold-expiry.md), in one call (so it is batched with the other script
-- calls of its event-loop turn, src/inventory/scripts.ts).
--
-- KEYS[1]  the token's hash, KEYS[2] the key that lives until the token expires
--          (src/inventory/holdTokenKeys.ts)
-- ARGV     workspaceId, createdAt, expiresAt, keepUntil (ms epoch)
-- Returns  1

redis.call('HSET', KEYS[1], 'workspaceId', ARGV[1], 'createdAt', ARGV[2], 'expiresAt', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
redis.call('SET', KEYS[2], '1', 'PXAT', ARGV[3])
return 1
