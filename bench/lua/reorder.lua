-- PUT /api/supplements/reorder with a shuffled permutation of a user's 200 supplement
-- ids. Requests go round-robin over the reorder users (`cookies`, `addresses`, `ids` from
-- the generated prelude), so concurrent requests are mostly for different users, as in life;
-- set one user only to measure a single list under contention.
local bodies = {}
local next_user = 0
local PER_USER = 8

function init(args)
  math.randomseed(os.time() * 1000 + (thread_index or 1) * 7919)
  for u = 1, #ids do
    bodies[u] = {}
    for k = 1, PER_USER do
      local perm = {}
      for i, id in ipairs(ids[u]) do
        perm[i] = id
      end
      for i = #perm, 2, -1 do
        local j = math.random(i)
        perm[i], perm[j] = perm[j], perm[i]
      end
      bodies[u][k] = '{"supplementIds":[' .. table.concat(perm, ",") .. "]}"
    end
  end
end

function request()
  next_user = next_user % #cookies + 1
  return wrk.format("PUT", "/api/supplements/reorder",
    { Cookie = cookies[next_user], Origin = origin, ["Content-Type"] = "application/json",
      ["X-Forwarded-For"] = addresses[next_user] },
    bodies[next_user][math.random(PER_USER)])
end
