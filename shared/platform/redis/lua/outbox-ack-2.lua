-- Moves an explore subject's outbox cursor and drops what it passed (shared/explore/feed-outbox.ts).
-- KEYS: outbox stream, cursor. ARGV: id sent up to, ttl ms.
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
redis.call('XTRIM', KEYS[1], 'MINID', ARGV[1])
return 1
