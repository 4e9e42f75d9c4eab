-- Claim due games for one replica's sweeper, atomically: each is moved from the due set to the
-- claimed set with this claim's lease end, so no two replicas work on one due entry; a claim whose
-- lease ran out (its replica died) is taken again.
-- KEYS[1] due zset, KEYS[2] claimed zset; ARGV[1] now (ms), ARGV[2] lease end (ms), ARGV[3] limit
-- Returns two lists of game ids: claimed again (their lease ran out), and claimed from the due set.
local again = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])) do
  redis.call('ZADD', KEYS[2], ARGV[2], m)
  table.insert(again, m)
end
local fresh = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])) do
  redis.call('ZREM', KEYS[1], m)
  redis.call('ZADD', KEYS[2], ARGV[2], m)
  table.insert(fresh, m)
end
return {again, fresh}
