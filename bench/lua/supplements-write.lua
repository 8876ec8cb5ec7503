-- POST /api/supplements, and DELETE of what a POST created, alternately: each user's
-- list stays far below the 200 cap however long the run. Requests go round-robin over
-- `cookies` (one session per writer user, from the generated prelude), each user from its
-- own address (`addresses`). The created row's owner is read back from its name
-- ("Bench u<index> …"), so the DELETE carries that user's cookie and address.
counter_names = { "posts", "deletes", "created", "deleted", "other_status" }
posts, deletes, created, deleted, other_status = 0, 0, 0, 0, 0

local queue, head, tail = {}, 1, 0
local turn, next_user = 0, 0
local quantity_types = { "Capsule(s)", "Tablet(s)", "Soft Gel", "Gummy(ies)", "Drop(s)" }

function request()
  turn = turn + 1
  if turn % 2 == 0 and tail >= head then
    local item = queue[head]
    queue[head] = nil
    head = head + 1
    deletes = deletes + 1
    return wrk.format("DELETE", "/api/supplements/" .. item.id,
      { Cookie = cookies[item.user], Origin = origin, ["X-Forwarded-For"] = addresses[item.user] })
  end
  next_user = next_user % #cookies + 1
  posts = posts + 1
  local body = string.format(
    '{"name":"Bench u%d n%d","quantityType":"%s","frequency":"Twice daily"}',
    next_user, posts, quantity_types[posts % #quantity_types + 1])
  return wrk.format("POST", "/api/supplements",
    { Cookie = cookies[next_user], Origin = origin, ["Content-Type"] = "application/json",
      ["X-Forwarded-For"] = addresses[next_user] }, body)
end

function response(status, headers, body)
  if status == 201 then
    created = created + 1
    local id = body:match('"id":(%d+)')
    local user = body:match('"name":"Bench u(%d+) ')
    if id and user then
      tail = tail + 1
      queue[tail] = { id = id, user = tonumber(user) }
    end
  elseif status == 204 then
    deleted = deleted + 1
  else
    other_status = other_status + 1
  end
end
