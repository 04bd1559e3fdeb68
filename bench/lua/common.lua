-- What plants.lua and soak.lua share: wrk's thread setup (each thread numbered, so that its ids are
-- its own), the bearer headers, ids as exact decimal text, and the merging of per-thread counts for
-- done(). Loaded with require from the scripts' own directory (see the top of each script).
local common = {}

-- The threads wrk set up, in the main Lua state where setup() and done() run.
common.threads = {}

-- wrk's setup(thread): gives each thread its index (the global thread_index in its own Lua state).
function common.setup(thread)
  thread:set("thread_index", #common.threads)
  table.insert(common.threads, thread)
end

-- The first id of this thread: id-base + thread_index * 2^30, so that threads never share an id. All
-- stay below 2^53, which Lua's doubles hold exactly.
function common.first_id(id_base)
  return id_base + thread_index * 2 ^ 30
end

-- Headers for requests with a JSON body, and for those without one (reads and deletes: no
-- Content-Type either).
function common.headers(token)
  return { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token },
    { ["Authorization"] = "Bearer " .. token }
end

-- An id as JSON and URL text: every digit, no exponent.
function common.id_text(id)
  return string.format("%.0f", id)
end

-- The sum over every thread of the table each kept in the global `name` (counts by key).
function common.merged(name)
  local merged = {}
  for _, thread in ipairs(common.threads) do
    for key, count in pairs(thread:get(name)) do merged[key] = (merged[key] or 0) + count end
  end
  return merged
end

-- A table of counts as a JSON object, its keys written with `key_format` ('"%s"' or '"%d"').
function common.json_counts(counts, key_format)
  local parts = {}
  for key, count in pairs(counts) do
    table.insert(parts, string.format(key_format .. ":%d", key, count))
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

return common
