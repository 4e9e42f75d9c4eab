-- Admission of one game creation for one creator (an address or an API key), atomically.
-- KEYS[1] the creator's token bucket (hash: t tokens, at ms), KEYS[2] its open games
-- (sorted set: member game id or reservation, score = ms after which it no longer counts);
-- both carry the creator's hash tag, so this runs on one Redis Cluster slot.
-- ARGV[1] now ms, ARGV[2] games per minute (0: no rate), ARGV[3] max open games (0: none),
-- ARGV[4] reservation member, ARGV[5] reservation lifetime ms.
-- Returns {0, 0} admitted (the reservation is held), {1, wait_ms} over the rate,
-- {2, open} at the open-games limit (nothing taken).
local now = tonumber(ARGV[1])
local per_minute = tonumber(ARGV[2])
local max_open = tonumber(ARGV[3])
if max_open > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  local open = redis.call('ZCARD', KEYS[2])
  if open >= max_open then
    return {2, open}
  end
end
if per_minute > 0 then
  local rate = per_minute / 60000.0
  local state = redis.call('HMGET', KEYS[1], 't', 'at')
  local tokens = tonumber(state[1]) or per_minute
  local at = tonumber(state[2]) or now
  tokens = math.min(per_minute, tokens + math.max(0, now - at) * rate)
  if tokens < 1 then
    return {1, math.ceil((1 - tokens) / rate)}
  end
  redis.call('HSET', KEYS[1], 't', tostring(tokens - 1), 'at', now)
  redis.call('PEXPIRE', KEYS[1], math.ceil(per_minute / rate) + 1000)
end
if max_open > 0 then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[4])
  if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[5]) then  -- never shortens the games' own lifetime
    redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[5]))
  end
end
return {0, 0}
