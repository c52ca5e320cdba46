dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local n = 0
local run = (os.getenv("BENCH_PREFIX") or "") .. tostring(os.time())
function request()
  n = n + 1
  return json_post("/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
    string.format('{"email":"s%s-%d-%d@bench.test","password":"secret123","returnSecureToken":true}', run, tid, n))
end
