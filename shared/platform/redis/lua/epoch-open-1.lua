-- Opens a Redis epoch (shared/platform/redis/redis-epoch.ts): writes the epoch hash only when it
-- is missing; answers 1 when written.
-- KEYS: the epoch hash. ARGV: epoch, floor, opened at (ms).
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'floor', ARGV[2], 'beat', '0', 'opened_at', ARGV[3])
return 1
