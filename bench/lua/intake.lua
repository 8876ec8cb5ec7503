-- PUT /api/intakes/{date}/{supplementId}/{time} (`path`, today's date, from the generated
-- prelude) for one of the user's own doses, alternately {"status":"taken"} and
-- {"status":"skipped"}, with the user's cookie, Origin and address. Meant for one
-- connection (the latency of one tick); counts the answers.
counter_names = { "taken", "skipped", "other_status" }
taken, skipped, other_status = 0, 0, 0

local turn = 0
local bodies = { '{"status":"taken"}', '{"status":"skipped"}' }
local headers = {
  Cookie = cookie,
  Origin = origin,
  ["Content-Type"] = "application/json",
  ["X-Forwarded-For"] = address,
}

function request()
  turn = turn % 2 + 1
  return wrk.format("PUT", path, headers, bodies[turn])
end

function response(status, headers, body)
  if status ~= 200 then
    other_status = other_status + 1
  elseif body:find('"status":"taken"', 1, true) then
    taken = taken + 1
  else
    skipped = skipped + 1
  end
end
