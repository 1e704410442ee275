-- Releases an explore feed lock (shared/explore/feed-lock.ts): deletes it only if it still holds
-- our token (a lock that outlived its TTL may be someone else's).
-- KEYS: the lock. ARGV: our token.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end
