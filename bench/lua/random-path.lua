-- GET one of `paths` (set by the generated prelude: profile pages, /api/profile/{name},
-- avatars, /go/{id}, social cards), chosen at random for every request, from a random
-- simulated visitor (visitors.lua). Optional, from the prelude: `user_agent` (a browser's,
-- so that the request counts as a view or a click; without it wrk sends none, which counts
-- as no view), `etags` (If-None-Match for paths[i]: the 304 scenario).
--
-- Each path's request line and fixed headers are built once (init), and a request is that
-- head, its visitor's X-Forwarded-For and the blank line: one concatenation. wrk.format, which
-- builds a table and runs string.format per header for every request, cost wrk about 2 µs of
-- CPU per request more than the ceiling's fixed request, taken from the app on the cores the
-- two share (BENCHMARKS.md, Method).
local heads = {}
local count = #paths

function init(args)
  math.randomseed(os.time() * 1000 + (thread_index or 1) * 7919)
  local host = "Host: " .. wrk.headers["Host"] .. "\r\n"
  local agent = user_agent and ("User-Agent: " .. user_agent .. "\r\n") or ""
  for i = 1, count do
    local match = etags and ("If-None-Match: " .. etags[i] .. "\r\n") or ""
    heads[i] = "GET " .. paths[i] .. " HTTP/1.1\r\n" .. host .. agent .. match .. "X-Forwarded-For: "
  end
end

function request()
  return heads[math.random(count)] .. visitor_address() .. "\r\n\r\n"
end
