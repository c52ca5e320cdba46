-- Accounts created through the admin API, as a CI fleet's fixtures do. Connection t (one per wrk
-- thread) writes to project bench-p<(t - 1) mod BENCH_PROJECTS>.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local n = 0
local run = (os.getenv("BENCH_PREFIX") or "") .. tostring(os.time())
local projects = tonumber(os.getenv("BENCH_PROJECTS") or "1")
function request()
  n = n + 1
  local project = "bench-p" .. tostring((tid - 1) % projects)
  return wrk.format("POST", "/identitytoolkit.googleapis.com/v1/projects/" .. project .. "/accounts",
    {["Content-Type"] = "application/json", ["Authorization"] = "Bearer owner"},
    string.format('{"email":"c%s-%d-%d@bench.test","password":"secret123"}', run, tid, n))
end
