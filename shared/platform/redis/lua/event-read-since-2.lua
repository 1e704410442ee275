-- The head seq and the entries after `after`, read in one step so that the entries reach exactly
-- up to the head (shared/platform/event-bus/event-history.ts). Reads nothing when the client is
-- level or ahead (the topic was reset). When the log does not reach back to `after + 1` (the client
-- is further behind than the log holds, or the counter was recreated above an epoch floor after a
-- Redis data loss), answers the newest entries instead, newest first, flagged 1: the caller looks
-- for an epoch's first seq in them.
-- KEYS: seq, log. ARGV: after, max entries.
local head = tonumber(redis.call('GET', KEYS[1]) or '0')
local after = tonumber(ARGV[1])
if after >= head then return {head, {}, 0} end
if head - after <= tonumber(ARGV[2]) then
  local r = redis.call('XRANGE', KEYS[2], string.format('%d', after + 1), '+', 'COUNT', ARGV[2])
  if #r == 0 or tonumber(string.match(r[1][1], '^(%d+)')) == after + 1 then return {head, r, 0} end
end
return {head, redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', ARGV[2]), 1}
