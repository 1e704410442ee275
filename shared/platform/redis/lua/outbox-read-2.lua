-- The entries of an explore subject's outbox after its cursor (from the start when there is
-- none), oldest first (shared/explore/feed-outbox.ts).
-- KEYS: outbox stream, cursor. ARGV: count.
local c = redis.call('GET', KEYS[2])
local from = '-'
if c then from = '(' .. c end
return redis.call('XRANGE', KEYS[1], from, '+', 'COUNT', ARGV[1])
