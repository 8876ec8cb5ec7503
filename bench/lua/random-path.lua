-- GET one of `paths` (set by the generated prelude: profile pages, /api/profile/{name},
-- or avatar URLs), chosen at random for every request.
function init(args)
  math.randomseed(os.time() * 1000 + (thread_index or 1) * 7919)
end

local count = #paths

function request()
  return wrk.format("GET", paths[math.random(count)])
end
