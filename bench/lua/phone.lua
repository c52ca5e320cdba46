-- Phone sign-in, three requests a flow: send the code, read it from the outbox, verify it.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local project = os.getenv("BENCH_PROJECT")
local n, base = 0, tostring(os.time() % 1000)

run_flow({
  { request = function(v)
      n = n + 1
      v.phone = string.format("+1%s%02d%06d", base, tid, n)
      return json_post("/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k",
        '{"phoneNumber":"' .. v.phone .. '"}')
    end, capture = { session = '"sessionInfo":"([^"]+)"' } },
  { request = function(v)
      return wrk.format("GET", "/emulator/v1/projects/" .. project ..
        "/smsMessages?status=PENDING&phoneNumber=%2B" .. string.sub(v.phone, 2))
    end, capture = { code = '"code":"(%d+)"' } },
  { request = function(v)
      return json_post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber?key=k",
        '{"sessionInfo":"' .. v.session .. '","code":"' .. v.code .. '"}')
    end },
})
