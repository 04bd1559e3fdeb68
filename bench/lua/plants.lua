-- wrk script for POST /plants. Usage:
--   wrk -s plants.lua URL -- <mode> <token> <id-base> <pool-size>
-- mode: create   every request a new id
--       replay   every request an id of the pre-created pool (-1 … -pool-size), same body: 200 replays
--       conflict every other request a new id, the others a pool id with a different name: 50 % 409s
--       unauth   every request a new id, with a wrong bearer token: 401s
--       get      GET /plants/<pool id>: 200s
--       list     GET /plants?limit=100: the first 100-plant page (the pool is at least that big): 200s
--       list-deep GET /plants?limit=100&after=<id-base>: a page after the id given as id-base: 200s
--       delete   a new plant, then its delete: 200 and 204 in equal shares. Run it with one connection per
--                thread (wrk -tN -cN): a thread's requests then go out one after the other on its own
--                connection, so each delete follows the answer to its create.
-- New ids are id-base + thread * 2^30 + n: unique across wrk threads and, with a fresh id-base per
-- invocation, across rounds. All stay below 2^53 so Lua's doubles hold them exactly.
-- done() prints one line "WRK_RESULT <json>" with the counts, latency percentiles and statuses.

local threads = {}
local thread_count = 0

function setup(thread)
  thread:set("thread_index", thread_count)
  thread_count = thread_count + 1
  table.insert(threads, thread)
end

local mode, id_base, first_id, pool_size, headers, bodyless
-- delete mode: the id of the create in flight, and the id its 200 made deletable.
local last_post, pending_delete
local sent = 0
statuses = {}

local NAME = '"name":"Monstera deliciosa","tag":"indoor"}'
local OTHER_NAME = '"name":"Ficus lyrata","tag":"indoor"}'

function init(args)
  mode = args[1]
  local token = args[2]
  id_base = tonumber(args[3])
  first_id = id_base + thread_index * 2 ^ 30
  pool_size = tonumber(args[4])
  if mode == "unauth" then token = "wrong-" .. token end
  headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }
  -- Reads and deletes carry no body, so no Content-Type either.
  bodyless = { ["Authorization"] = "Bearer " .. token }
end

local function body(id, rest)
  return '{"id":' .. string.format("%.0f", id) .. ',' .. rest
end

local function pool_id(n)
  return string.format("%.0f", -(1 + n % pool_size))
end

function request()
  sent = sent + 1
  if mode == "get" then
    return wrk.format("GET", "/plants/" .. pool_id(sent), bodyless)
  elseif mode == "list" then
    return wrk.format("GET", "/plants?limit=100", bodyless)
  elseif mode == "list-deep" then
    return wrk.format("GET", "/plants?limit=100&after=" .. string.format("%.0f", id_base), bodyless)
  elseif mode == "delete" then
    -- The plant the last answered create made is deleted next; otherwise a new plant is created.
    if pending_delete ~= nil then
      local id = pending_delete
      pending_delete = nil
      return wrk.format("DELETE", "/plants/" .. string.format("%.0f", id), bodyless)
    end
    last_post = first_id + sent
    return wrk.format("POST", "/plants", headers, body(last_post, NAME))
  end
  local payload
  if mode == "replay" then
    payload = body(-(1 + sent % pool_size), NAME)
  elseif mode == "conflict" and sent % 2 == 1 then
    payload = body(-(1 + math.floor(sent / 2) % pool_size), OTHER_NAME)
  else
    payload = body(first_id + sent, NAME)
  end
  return wrk.format("POST", "/plants", headers, payload)
end

function response(status, _headers, _body)
  statuses[status] = (statuses[status] or 0) + 1
  if last_post ~= nil and status == 200 then pending_delete = last_post end
  last_post = nil
end

function done(summary, latency, _requests)
  local merged = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      merged[status] = (merged[status] or 0) + count
    end
  end
  local parts = {}
  for status, count in pairs(merged) do
    table.insert(parts, string.format('"%d":%d', status, count))
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},"statuses":{%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.timeout, table.concat(parts, ",")))
end
