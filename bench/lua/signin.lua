dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local body = '{"email":"' .. os.getenv("BENCH_EMAIL") .. '","password":"secret123","returnSecureToken":true}'
function request()
  return json_post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k", body)
end
