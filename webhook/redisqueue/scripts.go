package redisqueue

import "github.com/redis/go-redis/v9"

// The queue's state lives in four keys under one prefix (one hash tag, so a
// Redis Cluster keeps them in one slot and the scripts may touch them all):
//
//	pending  HASH  job key → "<attempts made>|<job JSON>"   the one pending job per key
//	ready    ZSET  job key → earliest start, ms (server clock)  pending keys not running
//	running  HASH  job key → "<lease token>|<attempt>|<job JSON>"
//	leases   ZSET  job key → lease expiry, ms (server clock)
//
// plus one string per accepted delivery (seen:<X-GitHub-Delivery>, with a
// TTL) and a Pub/Sub channel (wake) on which every change that makes a job
// runnable is announced. Invariant kept by every script: a key is in ready
// exactly when it is in pending and not in running, so a dequeue never has
// to skip a busy key, and at most one job per key runs at a time.
//
// Every script reads the clock with TIME, the Redis server's clock, so
// replicas whose clocks disagree still agree on backoffs and lease expiry.
// Scripts run atomically: no other command interleaves with one.

// luaPrelude is shared by the scripts: the server clock in milliseconds.
const luaPrelude = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

// luaAdd is the enqueue logic of finishScript (enqueueScript inlines a
// leaner copy of the same effects).
// fits(first) reports whether the (key, job JSON) pairs in ARGV[first..]
// fit the capacity (a key already pending does not count again); add(first)
// stores them: a pending job of the same key is replaced (the newest wins,
// keeps its place in line and cancels a pending retry's backoff), a new key
// becomes ready unless it is running. add returns how many pending jobs it
// replaced, and the JSON of those that had started before (a retry, or a
// job recovered from a dead replica: each may have left a check run open).
// Callers define pending, ready, running (key names) and cap.
const luaAdd = `
local function fits(first)
  if cap <= 0 then return true end
  local new, seen = 0, {}
  for i = first, #ARGV, 2 do
    local k = ARGV[i]
    if not seen[k] then
      seen[k] = true
      if redis.call('HEXISTS', pending, k) == 0 then new = new + 1 end
    end
  end
  return redis.call('HLEN', pending) + new <= cap
end
local function add(first)
  local replaced, started = 0, {}
  for i = first, #ARGV, 2 do
    local k, j = ARGV[i], ARGV[i + 1]
    local old = redis.call('HGET', pending, k)
    if old then
      replaced = replaced + 1
      local bar = string.find(old, '|', 1, true)
      if tonumber(string.sub(old, 1, bar - 1)) > 0 then
        table.insert(started, string.sub(old, bar + 1))
      end
      local s = redis.call('ZSCORE', ready, k)
      if s and tonumber(s) > now then redis.call('ZADD', ready, now, k) end
    elseif redis.call('HEXISTS', running, k) == 0 then
      redis.call('ZADD', ready, now, k)
    end
    redis.call('HSET', pending, k, '0|' .. j)
  end
  return replaced, started
end
`

// enqueueScript stores a delivery's jobs; it is the one Redis call on the
// webhook's acknowledgement path, so it does the least it can (luaAdd's
// effects with fewer commands: the dedup check and record are one SET NX,
// each key is read once for both the capacity check and the store, and the
// pending count is computed, not read again). KEYS: pending, ready,
// running, seen, depthseq. ARGV: capacity (0 = unbounded), dedup ("1":
// refuse and record the seen key), seen TTL in ms (also the head marks'),
// wake channel, then for each job: key, head mark key ("" for none),
// skippable ("1"/"0"), the job's delivery ID, job JSON. Returns {"ok",
// replaced, seq, pending, number of started, JSON of each replaced job
// that had started..., JSON of each job skipped for its head mark...},
// {"dup", 0} or {"full", 0} (nothing
// changed); seq (INCR of depthseq) orders the pending count read with it
// among every other read (Store.Depth). The wake message goes out only when
// a job became runnable (a new key not running, or a replaced job whose
// retry backoff is cancelled): a job replaced in line changes nothing
// another replica could act on.
var enqueueScript = redis.NewScript(luaPrelude + `
local pending, ready, running = KEYS[1], KEYS[2], KEYS[3]
local cap, dedup = tonumber(ARGV[1]), ARGV[2] == '1'
if dedup and not redis.call('SET', KEYS[4], '1', 'PX', ARGV[3], 'NX') then return {'dup', 0} end
-- Jobs come as (key, head mark key or '', '1' when skippable, marking
-- delivery, job JSON); a skippable job whose head another delivery marked
-- is not stored (app.Job.HeadMark).
local kept, skipped = {}, {}
for i = 5, #ARGV, 5 do
  local mk = ARGV[i + 1]
  local m = false
  if mk ~= '' and ARGV[i + 2] == '1' then m = redis.call('GET', mk) end
  if m and m ~= ARGV[i + 3] then
    table.insert(skipped, ARGV[i + 4])
  else
    table.insert(kept, i)
  end
end
local n = redis.call('HLEN', pending)
local cur, new = {}, 0
for _, i in ipairs(kept) do
  local k = ARGV[i]
  if cur[k] == nil then
    cur[k] = redis.call('HGET', pending, k) or false
    if not cur[k] then new = new + 1 end
  end
end
if cap > 0 and n + new > cap then
  if dedup then redis.call('DEL', KEYS[4]) end
  return {'full', 0}
end
local replaced, started, wake, fresh = 0, {}, false, {}
for _, i in ipairs(kept) do
  local k, j = ARGV[i], ARGV[i + 4]
  local old = cur[k]
  if old then
    replaced = replaced + 1
    local bar = string.find(old, '|', 1, true)
    if tonumber(string.sub(old, 1, bar - 1)) > 0 then
      table.insert(started, string.sub(old, bar + 1))
    end
    -- A key seen earlier in this call is ready (or running) as of now.
    if not fresh[k] then
      local s = redis.call('ZSCORE', ready, k)
      if s and tonumber(s) > now then
        redis.call('ZADD', ready, now, k)
        wake = true
      end
    end
  elseif redis.call('HEXISTS', running, k) == 0 then
    redis.call('ZADD', ready, now, k)
    wake = true
  end
  fresh[k] = true
  cur[k] = '0|' .. j
  redis.call('HSET', pending, k, cur[k])
  if ARGV[i + 1] ~= '' then redis.call('SET', ARGV[i + 1], ARGV[i + 3], 'PX', ARGV[3]) end
end
if wake then redis.call('PUBLISH', ARGV[4], '1') end
local out = {'ok', replaced, redis.call('INCR', KEYS[5]), n + new, #started}
for _, j in ipairs(started) do table.insert(out, j) end
for _, j in ipairs(skipped) do table.insert(out, j) end
return out
`)

// dequeueScript leases the first runnable job. KEYS: pending, ready,
// running, leases, depthseq. ARGV: lease token, lease TTL in ms. Returns
// {"job", key, job JSON, attempt, seq, pending} (seq and pending as in
// enqueueScript) or {"none", ms until the next job is due, -1 for none}.
var dequeueScript = redis.NewScript(luaPrelude + `
for _ = 1, 16 do
  local r = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1)
  if #r == 0 then
    local nx = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    if #nx == 0 then return {'none', -1} end
    return {'none', math.max(0, tonumber(nx[2]) - now)}
  end
  local k = r[1]
  redis.call('ZREM', KEYS[2], k)
  local v = redis.call('HGET', KEYS[1], k)
  if v and redis.call('HEXISTS', KEYS[3], k) == 0 then
    redis.call('HDEL', KEYS[1], k)
    local bar = string.find(v, '|', 1, true)
    local attempt = tonumber(string.sub(v, 1, bar - 1)) + 1
    local j = string.sub(v, bar + 1)
    redis.call('HSET', KEYS[3], k, ARGV[1] .. '|' .. attempt .. '|' .. j)
    redis.call('ZADD', KEYS[4], now + tonumber(ARGV[2]), k)
    return {'job', k, j, attempt, redis.call('INCR', KEYS[5]), redis.call('HLEN', KEYS[1])}
  end
  -- A stale ready entry (no pending job, or the key is running): dropped;
  -- whoever finishes the running job makes the key ready again.
end
return {'none', 0}
`)

// luaOwned checks that the caller still holds the lease on ARGV[1] with
// token ARGV[2], and splits the running entry.
const luaOwned = `
local function owned(running, key, token)
  local v = redis.call('HGET', running, key)
  if not v or string.sub(v, 1, #token + 1) ~= token .. '|' then return nil end
  local rest = string.sub(v, #token + 2)
  local bar = string.find(rest, '|', 1, true)
  return tonumber(string.sub(rest, 1, bar - 1)), string.sub(rest, bar + 1)
end
`

// finishScript ends a job for good (succeeded, or failed after its last
// attempt) and enqueues its follow-ups in the same step. KEYS: pending,
// ready, running, leases, seen (of the job's delivery). ARGV: key, token,
// capacity, wake channel, forget ("1": delete the seen key so a manual
// redelivery runs again), then follow-up key, job JSON pairs. Returns
// {"ok", JSON of each replaced pending job that had started...}, {"lost"}
// (the lease expired and another replica took the job) or {"full"} (the
// follow-ups do not fit; nothing changed).
var finishScript = redis.NewScript(luaPrelude + luaOwned + `
local pending, ready, running = KEYS[1], KEYS[2], KEYS[3]
local cap = tonumber(ARGV[3])
` + luaAdd + `
if not owned(running, ARGV[1], ARGV[2]) then return {'lost'} end
if not fits(6) then return {'full'} end
redis.call('HDEL', running, ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
local _, started = add(6)
if redis.call('HEXISTS', pending, ARGV[1]) == 1 and redis.call('ZSCORE', ready, ARGV[1]) == false then
  redis.call('ZADD', ready, now, ARGV[1])
end
if ARGV[5] == '1' then redis.call('DEL', KEYS[5]) end
redis.call('PUBLISH', ARGV[4], '1')
local out = {'ok'}
for _, j in ipairs(started) do table.insert(out, j) end
return out
`)

// retryScript settles a failed or interrupted attempt. KEYS: pending,
// ready, running, leases. ARGV: key, token, delay in ms, wake channel, mode:
// "retry" (count the attempt, run again after the delay), "final" (the
// last attempt failed: keep the lease so the caller can report the failure
// and then call finishScript), or "handback" (shutdown: not counted, run
// again at once, elsewhere). A newer pending job for the key supersedes the
// failed one in every mode. Returns {"retry"}, {"final"}, {"handback"},
// {"superseded"} or {"lost"}.
var retryScript = redis.NewScript(luaPrelude + luaOwned + `
local attempt, j = owned(KEYS[3], ARGV[1], ARGV[2])
if not attempt then return {'lost'} end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('ZREM', KEYS[4], ARGV[1])
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  redis.call('PUBLISH', ARGV[4], '1')
  return {'superseded'}
end
if ARGV[5] == 'final' then return {'final'} end
local tries, at = attempt, now + tonumber(ARGV[3])
if ARGV[5] == 'handback' then
  tries, at = attempt - 1, now
  -- An attempt had started: the job is marked resumed (app.Job.Resumed;
  -- a key repeated in a JSON object is read as its last occurrence).
  if not string.find(j, '"resumed":true', 1, true) then j = string.sub(j, 1, -2) .. ',"resumed":true}' end
end
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], tries .. '|' .. j)
redis.call('ZADD', KEYS[2], at, ARGV[1])
redis.call('PUBLISH', ARGV[4], '1')
return {ARGV[5]}
`)

// heartbeatScript extends this replica's leases. KEYS: running, leases.
// ARGV: lease TTL in ms, then key, token pairs. Returns the keys whose
// lease this replica no longer holds.
var heartbeatScript = redis.NewScript(luaPrelude + luaOwned + `
local lost = {}
for i = 2, #ARGV, 2 do
  if owned(KEYS[1], ARGV[i], ARGV[i + 1]) then
    redis.call('ZADD', KEYS[2], 'XX', now + tonumber(ARGV[1]), ARGV[i])
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
`)

// reclaimScript returns the jobs of expired leases (their replica died or
// stalled) to pending, ready at once; the interrupted attempt counts, so a
// job that kills its replica every time is eventually dropped. A newer
// pending job for the key supersedes the interrupted one. KEYS: pending,
// ready, running, leases. ARGV: wake channel, batch size. Returns
// {key, token, attempt, "requeued"|"superseded"} for each reclaimed job.
var reclaimScript = redis.NewScript(luaPrelude + `
local out = {}
local expired = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, k in ipairs(expired) do
  local v = redis.call('HGET', KEYS[3], k)
  redis.call('HDEL', KEYS[3], k)
  redis.call('ZREM', KEYS[4], k)
  if v then
    local b1 = string.find(v, '|', 1, true)
    local token, rest = string.sub(v, 1, b1 - 1), string.sub(v, b1 + 1)
    local b2 = string.find(rest, '|', 1, true)
    local attempt, j = string.sub(rest, 1, b2 - 1), string.sub(rest, b2 + 1)
    if redis.call('HEXISTS', KEYS[1], k) == 1 then
      redis.call('ZADD', KEYS[2], now, k)
      table.insert(out, {k, token, attempt, 'superseded', j})
    elseif j ~= '' then
      redis.call('HSET', KEYS[1], k, attempt .. '|' .. j)
      redis.call('ZADD', KEYS[2], now, k)
      table.insert(out, {k, token, attempt, 'requeued'})
    end
  end
end
if #out > 0 then redis.call('PUBLISH', ARGV[1], '1') end
return out
`)
