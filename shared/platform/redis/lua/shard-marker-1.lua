-- Reads (and, when asked, makes) one master's loss marker on a Redis Cluster, and beats it
-- (shared/platform/redis/shard-markers.ts). The node id comes from the server that runs the script,
-- so a replica promoted since the last check answers with its own id under the old master's record.
-- KEYS: the marker hash.
-- ARGV: '1' to create the marker when it is missing.
-- Answers {exists, beat, this node's id (CLUSTER MYID), the node id the marker recorded ('' for a
-- marker just made)}.
local me = redis.call('CLUSTER', 'MYID')
if redis.call('EXISTS', KEYS[1]) == 0 then
  if ARGV[1] ~= '1' then return {0, 0, me, ''} end
  redis.call('HSET', KEYS[1], 'master', me, 'beat', '0')
  return {1, 0, me, ''}
end
local b = redis.call('HINCRBY', KEYS[1], 'beat', 1)
return {1, b, me, redis.call('HGET', KEYS[1], 'master') or ''}
