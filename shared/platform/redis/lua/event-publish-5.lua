-- Publishes one event on a topic: hands out its seq, appends it to the topic's history stream and
-- sends it live, in one step, so a seq is never handed out without its history entry and its live
-- message: a reader that sees seq n in the counter finds entries up to n in the log, and every
-- replica subscribed when the script ran receives message n, in seq order
-- (shared/platform/event-bus/event-publisher.ts).
-- A token-named topic is single-use: nobody can join it once its stream token lapses, so its keys
-- live no longer than the token's remaining life plus a grace instead of the shared topics' days.
-- The token's end is passed by the publisher when the token keeps no record (a signed token: its
-- quote row tells when it ends), else read from the token's own key here, in the same step.
-- A seq never goes backwards across a Redis data loss: a counter below the epoch's floor (it was
-- recreated after a flush, a restart without persistence, an eviction) starts just above it
-- (shared/platform/redis/redis-epoch.ts). On one Redis the floor is read from the epoch key in the
-- same step, and a missing epoch key refuses the publish (EPOCHLOST: the job is retried once the
-- new epoch is open), so no event of a lost epoch's counter ever reaches a client; on a cluster the
-- epoch key is in another slot and the publisher passes the floor it knows; since a loss is what
-- recreates counters, the script then refuses to create a missing counter (answers seq -1, writing
-- nothing) until the publisher has read the epoch key afresh (and, when it is gone, opened the new
-- epoch) and passes that floor with leave to create. A counter can also go back without going
-- missing, when a replica that lacked the last writes takes over its master: on a cluster the
-- publisher therefore passes the masters its last epoch check found intact, and the script answers
-- seq -2, writing nothing, on any other node (CLUSTER MYID), until a check has judged the newcomer
-- (a failover opens a new epoch, whose floor the counter then starts above).
-- KEYS: seq, log, once, stream token (token topics; else any key, unread), epoch (on one Redis with
-- an epoch; else any key, unread), all in one cluster slot.
-- ARGV: live channel (same slot), event, payload JSON, maxlen, log ttl ms, seq ttl ms, use once,
-- token grace ms ('' = shared topic), PUBLISH or SPUBLISH (sharded pub/sub on a cluster), the
-- publishing span's traceparent ('' = none; it goes in the live message only, never to a client),
-- the floor ('' = none, 'key' = the epoch key's, else a number), '1' to refuse creating a missing counter,
-- the verified masters' node ids, comma-joined ('' = no check: one Redis, or no epoch), the token's
-- end in unix ms ('' = read the token's key).
-- Answers {seq, 1} for an idempotency key already published (nothing sent), {-1, 0} when it
-- refused to create a missing counter, {-2, 0} on a master no check has verified, else {seq, 0}.
if ARGV[13] ~= '' then
  local me = redis.call('CLUSTER', 'MYID')
  if not string.find(',' .. ARGV[13] .. ',', ',' .. me .. ',', 1, true) then return {-2, 0} end
end
local floor = 0
if ARGV[11] == 'key' then
  local f = redis.call('HGET', KEYS[5], 'floor')
  if not f then return redis.error_reply('EPOCHLOST the Redis epoch key is missing (its data was lost): publishing waits for the new epoch') end
  floor = tonumber(f)
elseif ARGV[11] ~= '' then
  floor = tonumber(ARGV[11])
end
if ARGV[7] == '1' then
  local prior = redis.call('GET', KEYS[3])
  if prior then return {tonumber(prior), 1} end
end
if ARGV[12] == '1' and redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0} end
local logTtl = tonumber(ARGV[5])
local seqTtl = tonumber(ARGV[6])
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
if ARGV[8] ~= '' then
  local left
  if ARGV[14] ~= nil and ARGV[14] ~= '' then
    left = math.max(0, tonumber(ARGV[14]) - nowMs)
  else
    left = redis.call('PTTL', KEYS[4])
  end
  -- -1: a token without expiry (never minted so); -2: gone, only the grace is left
  if left ~= -1 then
    if left < 0 then left = 0 end
    local life = left + tonumber(ARGV[8])
    if life < seqTtl then seqTtl = life end
    if life < logTtl then logTtl = life end
  end
end
local seq = redis.call('INCR', KEYS[1])
if seq <= floor then
  seq = floor + 1
  redis.call('SET', KEYS[1], string.format('%d', seq))
end
-- the counter can only fall behind the log if someone deleted it: never reuse a seq
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
if #last > 0 then
  local lastSeq = tonumber(string.match(last[1][1], '^(%d+)'))
  if lastSeq >= seq then
    seq = lastSeq + 1
    redis.call('SET', KEYS[1], string.format('%d', seq))
  end
end
local ms = string.format('%d', nowMs)
local s = string.format('%d', seq)
local data
if ARGV[3] == '{}' then data = '{"seq":' .. s .. '}' else data = '{"seq":' .. s .. ',' .. string.sub(ARGV[3], 2) end
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[4], s .. '-0', 'e', ARGV[2], 'd', data, 't', ms)
redis.call('PEXPIRE', KEYS[2], string.format('%d', logTtl))
redis.call('PEXPIRE', KEYS[1], string.format('%d', seqTtl))
if ARGV[7] == '1' then redis.call('SET', KEYS[3], s, 'PX', string.format('%d', logTtl)) end
local traced = ''
if ARGV[10] ~= '' then traced = ARGV[10] .. '\t' end
redis.call(ARGV[9], ARGV[1], s .. '\t' .. ARGV[2] .. '\t' .. ms .. '\t' .. traced .. data)
return {seq, 0}
