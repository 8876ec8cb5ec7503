-- GET `path` with the session cookie `cookie`, from the user's one address `address`.
wrk.headers["Cookie"] = cookie
wrk.headers["X-Forwarded-For"] = address
wrk.path = path
