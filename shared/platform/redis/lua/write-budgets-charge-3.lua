-- Charges one write to the budgets of one family in order (api/auth/write-budgets.ts): the client
-- IP's, then each credential bucket the caller spends from. Each budget is a fixed window counted
-- as rate-limiter-flexible's RateLimiterRedis counts one: the first point starts the window (the
-- counter expires with it) and every point is counted, a refused one too. The first budget over
-- its limit stops the charge: the budgets after it are not charged.
-- KEYS: the counters in charging order, all under one hash tag (one cluster slot); a write with
-- fewer budgets repeats KEYS[1] in the places it leaves unused (ARGV says how many are charged).
-- ARGV: the window in seconds, then the limit of each budget charged (one to three).
-- Answers {0, 0} when every budget had room, else {n, ms}: the n-th budget refused, and its window
-- ends in ms.
local window = tonumber(ARGV[1])
local keys = { KEYS[1], KEYS[2], KEYS[3] }
for i = 1, #ARGV - 1 do
  local key = keys[i]
  redis.call('SET', key, 0, 'EX', window, 'NX')
  local consumed = redis.call('INCRBY', key, 1)
  local ttl = redis.call('PTTL', key)
  if ttl == -1 then
    redis.call('EXPIRE', key, window)
    ttl = 1000 * window
  end
  if consumed > tonumber(ARGV[i + 1]) then
    return { i, ttl }
  end
end
return { 0, 0 }
