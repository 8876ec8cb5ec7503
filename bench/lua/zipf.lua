-- The scale scenario: GET /{name} of one of `profiles` seeded profiles (`name_prefix` .. n,
-- from the generated prelude), drawn from a Zipf distribution with exponent `zipf_s`: rank k
-- is visited with probability proportional to 1 / k^s. Sampled by inverse CDF: the running
-- sums of the weights are tabled once, and a uniform number in [0, total) is looked up by
-- binary search. Rank k is profile ((k - 1) * perm_a) % profiles + 1 (`perm_a` coprime to
-- `profiles`), so the popular profiles are spread over the table, not its first rows. Each
-- request comes from a random simulated visitor (visitors.lua) with a browser's User-Agent
-- (`user_agent`): every visit counts as a view, as in life.
local cdf = {}
local total = 0
for k = 1, profiles do
  total = total + k ^ -zipf_s
  cdf[k] = total
end

-- The request's fixed parts are built once (init), as in random-path.lua: no wrk.format per request.
local head, tail

function init(args)
  math.randomseed(os.time() * 1000 + (thread_index or 1) * 7919)
  head = "GET /" .. name_prefix
  tail = " HTTP/1.1\r\nHost: " .. wrk.headers["Host"] .. "\r\nUser-Agent: " .. user_agent .. "\r\nX-Forwarded-For: "
end

function request()
  local u = math.random() * total
  local lo, hi = 1, profiles
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cdf[mid] < u then
      lo = mid + 1
    else
      hi = mid
    end
  end
  return head .. (((lo - 1) * perm_a) % profiles + 1) .. tail .. visitor_address() .. "\r\n\r\n"
end
