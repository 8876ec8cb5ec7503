-- Simulated visitors, prepended by bench/run.ts to every scenario of the app. The app runs
-- as behind Caddy (TRUST_PROXY=true, deploy/env.example): the client is the address in
-- X-Forwarded-For. visitor_address() draws one of `address_pool` addresses (the generated
-- prelude sets it; 100,000 by default) at random for each request: 198.18.0.0 + i, in the
-- range RFC 2544 reserves for benchmarks (bench/seed.ts visitorAddress, the same formula).
-- At the rates measured no address comes near a per-address limit (GET /api/profile/{name}:
-- 300 a minute), so a 429 is a real error.
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
