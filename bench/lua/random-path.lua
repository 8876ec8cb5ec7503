-- GET one of `paths` (set by the generated prelude: profile pages, /api/profile/{name},
-- avatars, /go/{id}, social cards), chosen at random for every request, from a random
-- simulated visitor (visitors.lua). Optional, from the prelude: `user_agent` (a browser's,
-- so that the request counts as a view or a click; without it wrk sends none, which counts
-- as no view), `etags` (If-None-Match for paths[i]: the 304 scenario).
function init(args)
  math.randomseed(os.time() * 1000 + (thread_index or 1) * 7919)
end

local count = #paths
local headers = {}
if user_agent then
  headers["User-Agent"] = user_agent
end

function request()
  local i = math.random(count)
  headers["X-Forwarded-For"] = visitor_address()
  if etags then
    headers["If-None-Match"] = etags[i]
  end
  return wrk.format("GET", paths[i], headers)
end
