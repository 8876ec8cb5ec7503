-- GET `path` (or the URL's path) with the session cookie `cookie`, from the user's one
-- address `address` (all set by the generated prelude): the same request every time, built
-- once by wrk.
wrk.headers["Cookie"] = cookie
wrk.headers["X-Forwarded-For"] = address
if path then
  wrk.path = path
end
