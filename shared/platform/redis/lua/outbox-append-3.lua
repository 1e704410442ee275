-- Appends entries to an explore subject's outbox (shared/explore/feed-outbox.ts). Answers the last
-- id and how many watchers the subject has.
-- KEYS: outbox stream, cursor, watcher tokens (one slot: the subject's hash tag).
-- ARGV: maxlen, ttl ms, then the entries' JSON.
local id
for i = 3, #ARGV do
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'j', ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return {id, redis.call('ZCARD', KEYS[3])}
