dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local body = '{"idToken":"' .. os.getenv("BENCH_ID_TOKEN") .. '"}'
function request()
  return json_post("/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k", body)
end
