-- GET wrk.path with the session cookie (`cookie`, set by the generated prelude):
-- the same request every time, built once by wrk.
wrk.headers["Cookie"] = cookie
