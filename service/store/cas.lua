-- Atomic compare-and-set of one game, in one round trip.
-- KEYS[1] game hash, KEYS[2] log stream, KEYS[3] request-id key, KEYS[4] fence set (player_index.py),
-- KEYS[5] the seat's index of remembered request ids (a list of '<ms>:<id>', oldest first; absent: not kept)
-- ARGV[1] expected version ("0": the game must not exist yet)
-- ARGV[2] new document, ARGV[3] log entry, ARGV[4] ttl seconds of game and log
-- ARGV[5] response to remember for the request id ("" when none), ARGV[6] its ttl
-- ARGV[7] the request's fingerprint, stored in front of the response in the same SET, so a
--         remembered response is never without the fingerprint of the request that made it
-- ARGV[8] the nonce of this write's player-index mark ("" or absent: none); a fenced nonce is refused
--         as a lost race (the drain gave up waiting for this write: the writer marks and tries again)
-- ARGV[9] the stamp (field 'w') of the document the caller decided on ("" or absent: not checked).
--         Every write stores a new one (ARGV[10]), unique to it: a version alone can name two different
--         documents after a failover lost a write, a stamp cannot, so a writer deciding on a cached copy
--         (redis_store.py) never writes over a document it has not seen.
-- ARGV[10] the stamp of the new document ("" or absent: none, and no cached copy of it is trusted)
-- ARGV[11] the most request ids the seat's index keeps ("" or absent: no index), ARGV[12] now in ms,
-- ARGV[13] how long (ms) an id stays in it, ARGV[14] this request id, ARGV[15] the prefix of the seat's
--          request-id keys: the oldest ids past the bound are popped and the responses of those still
--          remembered deleted, all under the game's hash tag (one Redis Cluster slot), in the write's
--          own round trip
-- {1, new_version, ids forgotten} when the index dropped some.
-- Returns {1, new_version} when written; {0, current_version, current document, its stamp} when the
-- version or the stamp moved (the caller decides again on that document, with no read: "" when the
-- game does not exist); {2, remembered} when the request id's response is remembered already (the
-- request was applied: the caller answers with it and writes nothing).
local fields = redis.call('HMGET', KEYS[1], 'v', 'w')
local current = fields[1]
if not current then current = '0' end
local stamp = fields[2] or ''
local function lost()
  return {0, tonumber(current), redis.call('HGET', KEYS[1], 'doc') or '', stamp}
end
if current ~= ARGV[1] then
  return lost()
end
if ARGV[9] and ARGV[9] ~= '' and stamp ~= ARGV[9] then
  return lost()
end
if ARGV[8] and ARGV[8] ~= '' and redis.call('SISMEMBER', KEYS[4], ARGV[8]) == 1 then
  return lost()
end
if ARGV[5] ~= '' then
  local remembered = redis.call('GET', KEYS[3])
  if remembered then
    return {2, remembered}
  end
end
local version = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'v', version, 'doc', ARGV[2], 'w', ARGV[10] or '')
redis.call('XADD', KEYS[2], version .. '-0', 'e', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[3], ARGV[7] .. ARGV[5], 'EX', ARGV[6])
  if ARGV[11] and ARGV[11] ~= '' then
    -- The seat's index is a list of '<ms>:<id>', oldest first (write order): appending and popping
    -- the head are O(1), where a sorted set's ZADD scanned its whole listpack for the member.
    -- An entry at least ARGV[13] ms old is stale (its response expired with it): popped silently.
    local now, window = tonumber(ARGV[12]), tonumber(ARGV[13])
    local over = redis.call('RPUSH', KEYS[5], ARGV[12] .. ':' .. ARGV[14]) - tonumber(ARGV[11])
    redis.call('PEXPIRE', KEYS[5], ARGV[13])
    local forgotten = 0
    for _ = 1, over do
      local entry = redis.call('LPOP', KEYS[5])
      local colon = string.find(entry, ':', 1, true)
      if now - tonumber(string.sub(entry, 1, colon - 1)) < window then
        redis.call('DEL', ARGV[15] .. string.sub(entry, colon + 1))
        forgotten = forgotten + 1
      end
    end
    if forgotten > 0 then
      return {1, version, forgotten}
    end
  end
end
return {1, version}
