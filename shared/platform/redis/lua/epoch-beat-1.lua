-- The Redis epoch's heartbeat (shared/platform/redis/redis-epoch.ts). Answers {epoch, beat}: {0, 0}
-- when the key is missing. Every check increments the beat, so a failover to a replica that lost
-- the last writes shows as a beat lower than one the process already saw.
-- KEYS: the epoch hash.
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, 0} end
local b = redis.call('HINCRBY', KEYS[1], 'beat', 1)
return {tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0'), b}
