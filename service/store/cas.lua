-- Atomic compare-and-set of one game, in one round trip.
-- KEYS[1] game hash, KEYS[2] log stream, KEYS[3] request-id key
-- ARGV[1] expected version ("0": the game must not exist yet)
-- ARGV[2] new document, ARGV[3] log entry, ARGV[4] ttl seconds of game and log
-- ARGV[5] response to remember for the request id ("" when none), ARGV[6] its ttl
-- ARGV[7] the request's fingerprint, stored in front of the response in the same SET, so a
--         remembered response is never without the fingerprint of the request that made it
-- Returns {1, new_version} when written, {0, current_version} when the version moved.
local current = redis.call('HGET', KEYS[1], 'v')
if not current then current = '0' end
if current ~= ARGV[1] then
  return {0, tonumber(current)}
end
local version = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'v', version, 'doc', ARGV[2])
redis.call('XADD', KEYS[2], version .. '-0', 'e', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[3], ARGV[7] .. ARGV[5], 'EX', ARGV[6])
end
return {1, version}
