-- Forgets the key of members whose pubsub registration lapsed, and answers the rest:
-- {member, key id, ...} (shared/events/pubsub-registrations.ts).
-- KEYS: the tier's sorted set, its member -> key id hash. ARGV: now (unix ms).
local h = redis.call('HGETALL', KEYS[2])
local out = {}
for i = 1, #h, 2 do
  local lapses = redis.call('ZSCORE', KEYS[1], h[i])
  if lapses and tonumber(lapses) > tonumber(ARGV[1]) then
    out[#out + 1] = h[i]
    out[#out + 1] = h[i + 1]
  else
    redis.call('HDEL', KEYS[2], h[i])
  end
end
return out
