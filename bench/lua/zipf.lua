-- GET /{name_prefix}{n} of `profiles` profiles, Zipf-distributed (exponent `zipf_s`: rank k
-- with weight 1 / k^s, by inverse CDF and binary search), rank k mapped to profile
-- ((k - 1) * perm_a) % profiles + 1 so the popular ones spread over the table; a browser's
-- User-Agent, so every visit counts a view.
local cdf, total = {}, 0
for k = 1, profiles do
  total = total + k ^ -zipf_s
  cdf[k] = total
end
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
    if cdf[mid] < u then lo = mid + 1 else hi = mid end
  end
  return head .. (((lo - 1) * perm_a) % profiles + 1) .. tail .. visitor_address() .. "\r\n\r\n"
end
