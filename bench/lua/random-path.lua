-- GET one of `paths` at random per request, from a random visitor; `user_agent` (optional)
-- makes it a browser's (a counted view or click) or a crawler's. Each path's head is built once.
local heads = {}
local count = #paths

function init(args)
  math.randomseed(os.time() * 1000 + (thread_index or 1) * 7919)
  local host = "Host: " .. wrk.headers["Host"] .. "\r\n"
  local agent = user_agent and ("User-Agent: " .. user_agent .. "\r\n") or ""
  for i = 1, count do
    heads[i] = "GET " .. paths[i] .. " HTTP/1.1\r\n" .. host .. agent .. "X-Forwarded-For: "
  end
end

function request()
  return heads[math.random(count)] .. visitor_address() .. "\r\n\r\n"
end
