dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local body = "grant_type=refresh_token&refresh_token=" .. os.getenv("BENCH_REFRESH_TOKEN_URLENCODED")
function request()
  return wrk.format("POST", "/securetoken.googleapis.com/v1/token?key=k",
    {["Content-Type"] = "application/x-www-form-urlencoded"}, body)
end
