-- wrk script for POST /plants. Usage:
--   wrk -s plants.lua URL -- <mode> <token> <id-base> <pool-size>
-- mode: create   every request a new id
--       replay   every request an id of the pre-created pool (-1 … -pool-size), same body: 200 replays
--       conflict every other request a new id, the others a pool id with a different name: 50 % 409s
--       unauth   every request a new id, with a wrong bearer token: 401s
--       forbidden every request a new id, with the token's read-only sibling (<token>-readonly): 403s
--       notfound GET /plant-pots/<n>, a path no operation has: 404s
--       method   DELETE /plants, a method the collection does not have: 405s
--       get      GET /plants/<pool id>: 200s
--       list     GET /plants?limit=100: the first 100-plant page (the pool is at least that big): 200s
--       list-deep GET /plants?limit=100&after=<id-base>: a page after the id given as id-base: 200s
--       update   PUT /plants/<id> of the pool's second half (-(pool-size+1) … -2·pool-size) with a new name
--                every request (a durable edit each): 200s. Never the first half: an edit there would
--                change the body a later replay of that id sends, making it a 409.
--       delete   a new plant, then its delete: 200 and 204 in equal shares. Run it with one connection per
--                thread (wrk -tN -cN): a thread's requests then go out one after the other on its own
--                connection, so each delete follows the answer to its create.
-- New ids are id-base + thread * 2^30 + n: unique across wrk threads and, with a fresh id-base per
-- invocation, across rounds. All stay below 2^53 so Lua's doubles hold them exactly.
-- done() prints one line "WRK_RESULT <json>" with the counts, latency percentiles and statuses.

-- common.lua sits beside this script; wrk does not put the script's directory on package.path.
package.path = (debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "?.lua;" .. package.path
local common = require("common")

setup = common.setup

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
  first_id = common.first_id(id_base)
  pool_size = tonumber(args[4])
  if mode == "unauth" then token = "wrong-" .. token end
  if mode == "forbidden" then token = token .. "-readonly" end
  headers, bodyless = common.headers(token)
end

local function body(id, rest)
  return '{"id":' .. common.id_text(id) .. ',' .. rest
end

local function pool_id(n)
  return common.id_text(-(1 + n % pool_size))
end

function request()
  sent = sent + 1
  if mode == "get" then
    return wrk.format("GET", "/plants/" .. pool_id(sent), bodyless)
  elseif mode == "notfound" then
    return wrk.format("GET", "/plant-pots/" .. sent, bodyless)
  elseif mode == "method" then
    return wrk.format("DELETE", "/plants", bodyless)
  elseif mode == "list" then
    return wrk.format("GET", "/plants?limit=100", bodyless)
  elseif mode == "list-deep" then
    return wrk.format("GET", "/plants?limit=100&after=" .. common.id_text(id_base), bodyless)
  elseif mode == "update" then
    -- The name carries this thread's first id and its count: no two requests ask for the same plant.
    local name = '{"name":"Monstera ' .. common.id_text(first_id + sent) .. '","tag":"indoor"}'
    return wrk.format("PUT", "/plants/" .. common.id_text(-(1 + pool_size + sent % pool_size)), headers, name)
  elseif mode == "delete" then
    -- The plant the last answered create made is deleted next; otherwise a new plant is created.
    if pending_delete ~= nil then
      local id = pending_delete
      pending_delete = nil
      return wrk.format("DELETE", "/plants/" .. common.id_text(id), bodyless)
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
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},"statuses":%s}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.timeout, common.json_counts(common.merged("statuses"), '"%d"')))
end
