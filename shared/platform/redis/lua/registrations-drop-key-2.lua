-- Removes the pubsub registrations a key made: the members whose recorded key is ARGV[1]
-- (shared/events/pubsub-registrations.ts). Compare-and-delete in one step, so a wallet that
-- re-registered with another credential meanwhile keeps that registration. Answers how many.
-- KEYS: the tier's sorted set, its member -> key id hash. ARGV: the key id.
local h = redis.call('HGETALL', KEYS[2])
local n = 0
for i = 1, #h, 2 do
  if h[i + 1] == ARGV[1] then
    redis.call('ZREM', KEYS[1], h[i])
    redis.call('HDEL', KEYS[2], h[i])
    n = n + 1
  end
end
return n
