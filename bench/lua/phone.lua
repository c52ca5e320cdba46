-- Phone sign-in, three requests a flow: send the code, read it from the outbox, verify it.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local project = os.getenv("BENCH_PROJECT")
local state, n, session, code, phone = 0, 0, nil, nil, nil
local base = tostring(os.time() % 1000)

function request()
  if state == 0 then
    n = n + 1
    phone = string.format("+1%s%02d%06d", base, tid, n)
    return json_post("/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k",
      '{"phoneNumber":"' .. phone .. '"}')
  elseif state == 1 then
    return wrk.format("GET", "/emulator/v1/projects/" .. project .. "/smsMessages?status=PENDING&phoneNumber=%2B" ..
      string.sub(phone, 2))
  else
    return json_post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber?key=k",
      '{"sessionInfo":"' .. session .. '","code":"' .. code .. '"}')
  end
end

function response(status, headers, body)
  if status ~= 200 then state = 0 return end
  if state == 0 then
    session = string.match(body, '"sessionInfo":"([^"]+)"')
    state = 1
  elseif state == 1 then
    code = string.match(body, '"code":"(%d+)"')
    state = code and 2 or 1
  else
    state = 0
  end
end
