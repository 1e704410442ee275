-- Takes a slot of a live explore stream cap (api/auth/stream-caps.ts). Drops expired slots; under
-- the cap adds this one and answers 0, else the ms until the oldest expires.
-- KEYS: one cap's set (token slots scored by expiry). ARGV: now ms, cap, expiry ms, slot id.
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) - tonumber(ARGV[1]))
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[3], 'GT')
redis.call('PEXPIREAT', KEYS[1], ARGV[3], 'NX')
return 0
