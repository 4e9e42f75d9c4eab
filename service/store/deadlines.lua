-- Claim due games for one replica's sweeper, atomically: each is moved from the due set to the
-- claimed set with this claim's lease end, so no two replicas work on one due entry; a claim whose
-- lease ran out (its replica died, or it was held for a second look) is taken again.
-- A due entry whose game another live claim is working on stays due until that claim is let go
-- (a second replica would decide the same moves and lose compare-and-sets to the first); one whose
-- claim is only held for a second look (KEYS[3], Deadlines.hold) is taken over: this look is it.
-- KEYS[1] due zset, KEYS[2] claimed zset, KEYS[3] held zset; ARGV[1] now (ms), ARGV[2] lease end (ms),
-- ARGV[3] limit
-- Returns two lists of game ids: claimed again (their lease ran out), and claimed from the due set.
local limit = tonumber(ARGV[3])
local again = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, limit)) do
  redis.call('ZADD', KEYS[2], ARGV[2], m)
  table.insert(again, m)
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])  -- holds run out: those just claimed again, strays
-- Entries skipped below are of claimed games, so reading that many more keeps a full batch possible.
local window = limit + redis.call('ZCARD', KEYS[2])
local fresh = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, window)) do
  if #fresh >= limit then break end
  local lease = redis.call('ZSCORE', KEYS[2], m)  -- a claim run out past the batch above is nobody's now
  if not lease or tonumber(lease) <= tonumber(ARGV[1]) or lease == redis.call('ZSCORE', KEYS[3], m) then
    redis.call('ZREM', KEYS[1], m)
    redis.call('ZADD', KEYS[2], ARGV[2], m)
    redis.call('ZREM', KEYS[3], m)
    table.insert(fresh, m)
  end
end
return {again, fresh}
