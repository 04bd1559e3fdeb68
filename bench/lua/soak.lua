-- wrk script for `pnpm soak`: a mixed load on one connection per thread (wrk -tN -cN), so that each
-- answer is known to belong to the request before it. Usage:
--   wrk -tN -cN -s soak.lua URL -- <token> <id-base> <pool-size>
-- Each request is, by weight: 30 create (a new id; its tag carries the id), 15 replay (a pool plant,
-- same body), 10 conflict (a pool id, another name), 20 get (a pool plant), 10 list (a first page of
-- 100), 10 delete (a plant this thread created and saw acknowledged), 5 unauth (a wrong token).
-- An answer whose status is not the one its kind expects is counted as unexpected, by kind and status.
-- done() prints one line "SOAK_RESULT <json>".

-- common.lua sits beside this script; wrk does not put the script's directory on package.path.
package.path = (debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./") .. "?.lua;" .. package.path
local common = require("common")

setup = common.setup

local EXPECTED = { create = 200, replay = 200, conflict = 409, get = 200, list = 200, delete = 204, unauth = 401 }
local MIX = {
  { "create", 30 }, { "replay", 15 }, { "conflict", 10 }, { "get", 20 }, { "list", 10 }, { "delete", 10 }, { "unauth", 5 },
}

local first_id, pool_size, headers, bodyless, wrong
local sent = 0
local last_kind, last_created
local deletable = {}
counts = {}
unexpected = {}

function init(args)
  local token = args[1]
  first_id = common.first_id(tonumber(args[2]))
  pool_size = tonumber(args[3])
  headers, bodyless = common.headers(token)
  wrong = common.headers("wrong-" .. token)
  math.randomseed(thread_index + 1)
end

local id_text = common.id_text
local function pool_id(n) return id_text(-(1 + n % pool_size)) end

local function pick()
  local roll = math.random(100)
  for _, entry in ipairs(MIX) do
    roll = roll - entry[2]
    if roll <= 0 then return entry[1] end
  end
  return "get"
end

function request()
  sent = sent + 1
  local kind = pick()
  if kind == "delete" and #deletable == 0 then kind = "get" end
  last_kind = kind
  last_created = nil
  if kind == "create" then
    last_created = first_id + sent
    local id = id_text(last_created)
    return wrk.format("POST", "/plants", headers, '{"id":' .. id .. ',"name":"Soak","tag":"s' .. id .. '"}')
  elseif kind == "replay" then
    return wrk.format("POST", "/plants", headers, '{"id":' .. pool_id(sent) .. ',"name":"Monstera deliciosa","tag":"indoor"}')
  elseif kind == "conflict" then
    return wrk.format("POST", "/plants", headers, '{"id":' .. pool_id(sent) .. ',"name":"Ficus lyrata","tag":"indoor"}')
  elseif kind == "get" then
    return wrk.format("GET", "/plants/" .. pool_id(sent), bodyless)
  elseif kind == "list" then
    return wrk.format("GET", "/plants?limit=100", bodyless)
  elseif kind == "delete" then
    return wrk.format("DELETE", "/plants/" .. id_text(table.remove(deletable)), bodyless)
  end
  return wrk.format("POST", "/plants", wrong, '{"id":' .. id_text(first_id + sent) .. ',"name":"Soak"}')
end

function response(status, _headers, _body)
  local kind = last_kind or "unknown"
  counts[kind] = (counts[kind] or 0) + 1
  if EXPECTED[kind] ~= status then
    local key = kind .. ":" .. status
    unexpected[key] = (unexpected[key] or 0) + 1
  elseif kind == "create" and last_created ~= nil and #deletable < 10000 then
    table.insert(deletable, last_created)
  end
  last_kind = nil
end

function done(summary, latency, _requests)
  local e = summary.errors
  io.write(string.format(
    'SOAK_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"socketErrors":%d,"counts":%s,"unexpected":%s}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, common.json_counts(common.merged("counts"), '"%s"'),
    common.json_counts(common.merged("unexpected"), '"%s"')))
end
