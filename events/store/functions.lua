#!lua name=svara_events_@TAG@
-- The event store's server-side steps. Loaded as a Redis Function library (persisted in RDB
-- and AOF, untouched by SCRIPT FLUSH); the Python side reloads it if FCALL finds it missing.
-- @TAG@ is replaced by a digest of this file, so two code versions never overwrite each other.
-- Every key is passed in KEYS and all share one hash tag: cluster-safe.

local ZERO = '0000000000000000000000000000000000000000000000000000000000000000'

-- The stream's last version and chain hash (0 and ZERO when it has no entries).
local function head(events)
  local last = redis.call('XREVRANGE', events, '+', '-', 'COUNT', 1)
  if #last == 0 then
    return 0, ZERO
  end
  local version = tonumber(string.match(last[1][1], '^(%d+)-'))
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'h' then
      return version, fields[i + 1]
    end
  end
  return version, ''
end

-- Index entries beside the streams (see events/store/keys.py). KEYS from `first_key` on: a
-- (sorted set, hash) pair per change; ARGV from `first_arg` on: member, score, value per change.
-- An empty score removes the member (and its value); an empty value leaves the value alone.
local function apply_index(keys, first_key, args, first_arg)
  local count = (#keys - first_key + 1) / 2
  for i = 0, count - 1 do
    local z, v = keys[first_key + 2 * i], keys[first_key + 2 * i + 1]
    local a = first_arg + 3 * i
    local member, score, value = args[a], args[a + 1], args[a + 2]
    if score == '' then
      redis.call('ZREM', z, member)
      redis.call('HDEL', v, member)
    else
      redis.call('ZADD', z, score, member)
      if value ~= '' then
        redis.call('HSET', v, member, value)
      end
    end
  end
end

-- KEYS: events, actions, then the index changes' key pairs (same slot as the stream)
-- ARGV: expected_version, prev_hash, action_id ('' for none), at, n, data_1, hash_1, ...,
--       data_n, hash_n, then member, score, value per index change
-- Every entry is written with its chain version, c = 2 (events/store/chain.py: the hash covers
-- the time `at` too); entries written before it have no c (version 1).
-- Order matters: a known action_id answers before the version check, so racing retries of one
-- command write exactly once. Nothing is written unless every check passed, and the first XADD
-- is the only one that could fail (ids then strictly increase): all or nothing. The index
-- changes are written with the events or not at all, so an index entry always describes the
-- stream's head.
local function append(keys, args)
  local events, actions = keys[1], keys[2]
  local expected = tonumber(args[1])
  local prev, action, at = args[2], args[3], args[4]
  local n = tonumber(args[5])
  if action ~= '' then
    local done = redis.call('HGET', actions, action)
    if done then
      return {'duplicate', tonumber(done)}
    end
  end
  local version, hash = head(events)
  if version ~= expected then
    return {'conflict', version, hash}
  end
  if hash ~= prev then
    -- The caller chained from a stale or unknown head hash: tell it the right one.
    return {'rehash', version, hash}
  end
  for i = 1, n do
    local id = string.format('%d-0', expected + i)
    if action ~= '' then
      redis.call('XADD', events, id, 'd', args[4 + 2 * i], 'at', at, 'h', args[5 + 2 * i],
        'c', '2', 'a', action)
    else
      redis.call('XADD', events, id, 'd', args[4 + 2 * i], 'at', at, 'h', args[5 + 2 * i],
        'c', '2')
    end
  end
  if action ~= '' then
    redis.call('HSET', actions, action, expected + n)
  end
  apply_index(keys, 3, args, 6 + 2 * n)
  return {'appended', expected + n}
end

-- KEYS: events, then the index changes' key pairs. ARGV: expected_version, then member,
-- score, value per change. Applies the changes iff the stream is at expected_version (1),
-- else nothing (0): how an index entry is corrected or rebuilt without an append.
local function set_index(keys, args)
  local version = head(keys[1])
  if version ~= tonumber(args[1]) then
    return 0
  end
  apply_index(keys, 2, args, 2)
  return 1
end

-- KEYS: events, snapshot
-- ARGV: version, data. Keeps the newest snapshot; refuses one beyond the stream's head.
local function save_snapshot(keys, args)
  local version = tonumber(args[1])
  local head_version = head(keys[1])
  if version > head_version then
    return redis.error_reply('ERR snapshot version ' .. args[1] .. ' is ahead of the stream')
  end
  local current = tonumber(redis.call('HGET', keys[2], 'v') or '-1')
  if current ~= nil and current > version then
    return 0
  end
  redis.call('HSET', keys[2], 'v', args[1], 'd', args[2])
  return 1
end

-- KEYS: events, actions, snapshot, then whole indexes' key pairs (same slot as the stream)
-- ARGV: expected_version. Deletes all of them iff the stream is at expected_version (1),
-- else nothing (0): an archive drops exactly the log it wrote out, never an event after it.
local function drop_stream(keys, args)
  local version = head(keys[1])
  if version ~= tonumber(args[1]) then
    return 0
  end
  redis.call('DEL', unpack(keys))
  return 1
end

redis.register_function('svara_append_@TAG@', append)
redis.register_function('svara_snapshot_@TAG@', save_snapshot)
redis.register_function('svara_index_@TAG@', set_index)
redis.register_function('svara_drop_@TAG@', drop_stream)
