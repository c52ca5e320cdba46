dofile(os.getenv("BENCH_LUA") .. "/common.lua")
function request()
  return json_post("/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", '{"email":"a@b.c","password":"secret123"}')
end
