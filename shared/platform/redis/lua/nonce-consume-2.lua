-- Consumes a sign-in nonce (shared/identity/nonce-store.ts): deletes it and leaves a "used" marker
-- for the rest of its life, atomically. Answers 1 for the one caller that consumed it, 0 after.
-- KEYS: the nonce, its used marker. ARGV: the marker's life (ms).
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return 1
