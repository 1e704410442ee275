-- Lists the shard markers' slots in the Redis epoch key (`marker:<slot>` fields), only while the key
-- still holds that epoch, so every process, even one started after a loss, knows which markers
-- must exist (shared/platform/redis/shard-markers.ts).
-- KEYS: the epoch hash.
-- ARGV: the epoch, then the marker slots.
-- Answers 1 when listed, 0 when the key holds another epoch (nothing written).
if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[1] then return 0 end
for i = 2, #ARGV do redis.call('HSET', KEYS[1], 'marker:' .. ARGV[i], '1') end
return 1
