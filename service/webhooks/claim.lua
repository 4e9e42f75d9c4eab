-- Claim deliveries of one endpoint for one replica, atomically, within the endpoint's limits.
-- Every key is the endpoint's ({wh:<name>}), so this is one slot on Redis Cluster.
-- KEYS[1] due zset, KEYS[2] claimed zset, KEYS[3] bucket hash, KEYS[4] messages hash
-- ARGV[1] now (ms), ARGV[2] lease end (ms), ARGV[3] batch, ARGV[4] max in flight,
-- ARGV[5] rate per second (0 = none)
-- Returns {id, message, id, message, ...}: claims whose lease ran out (their replica died) first, then
-- due deliveries. Live claims count against max in flight (over all replicas); each claim takes a token
-- of the endpoint's bucket (bursts of max(1, rate)).
local now = tonumber(ARGV[1])
local allowed = tonumber(ARGV[3])
local in_flight = redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf')
allowed = math.min(allowed, tonumber(ARGV[4]) - in_flight)
local rate = tonumber(ARGV[5])
local tokens = 0
if rate > 0 then
  local burst = math.max(1, rate)
  local bucket = redis.call('HMGET', KEYS[3], 't', 'a')
  tokens = tonumber(bucket[1]) or burst
  local since = tonumber(bucket[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - since) * rate / 1000)
  allowed = math.min(allowed, math.floor(tokens))
end
local out = {}
local function take(id)
  local message = redis.call('HGET', KEYS[4], id)
  if message then
    redis.call('ZADD', KEYS[2], ARGV[2], id)
    table.insert(out, id)
    table.insert(out, message)
  else
    redis.call('ZREM', KEYS[2], id)  -- settled meanwhile: nothing to deliver
  end
end
if allowed > 0 then
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, allowed)) do
    take(id)
  end
  local left = allowed - #out / 2
  if left > 0 then
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, left)) do
      redis.call('ZREM', KEYS[1], id)
      take(id)
    end
  end
end
if rate > 0 then
  redis.call('HSET', KEYS[3], 't', tostring(tokens - #out / 2), 'a', tostring(now))
  redis.call('PEXPIRE', KEYS[3], 3600000)
end
return out
