-- Prepended to every scenario of the app: a random simulated visitor per request. The app runs
-- as behind Caddy (TRUST_PROXY=true), so the client is the X-Forwarded-For address:
-- 198.18.0.0 + i for i below `address_pool` (RFC 2544's benchmark range), so no address
-- nears a per-address limit.
local visitor_pool

function visitor_address()
  if not visitor_pool then
    visitor_pool = {}
    for i = 0, address_pool - 1 do
      visitor_pool[i + 1] = string.format("198.%d.%d.%d", 18 + math.floor(i / 65536), math.floor(i / 256) % 256, i % 256)
    end
  end
  return visitor_pool[math.random(address_pool)]
end
