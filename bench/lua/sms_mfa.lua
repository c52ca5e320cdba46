-- SMS second-factor sign-in, four requests a flow: password -> mfaSignIn:start -> read the code
-- from the outbox -> mfaSignIn:finalize. Each thread signs in its own user (mfa<tid>@bench.test).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local project = os.getenv("BENCH_PROJECT")
local state, pending, enrollment, session, code = 0, nil, nil, nil, nil

function request()
  if state == 0 then
    return json_post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
      string.format('{"email":"mfa%d@bench.test","password":"secret123"}', tid))
  elseif state == 1 then
    return json_post("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start?key=k",
      '{"mfaPendingCredential":"' .. pending .. '","mfaEnrollmentId":"' .. enrollment .. '"}')
  elseif state == 2 then
    return wrk.format("GET", string.format(
      "/emulator/v1/projects/%s/smsMessages?status=PENDING&purpose=MFA_SIGN_IN&phoneNumber=%%2B155599%05d", project, tid))
  else
    return json_post("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize?key=k",
      '{"mfaPendingCredential":"' .. pending .. '","phoneVerificationInfo":{"sessionInfo":"' .. session ..
      '","code":"' .. code .. '"}}')
  end
end

function response(status, headers, body)
  if status ~= 200 then state = 0 return end
  if state == 0 then
    pending = string.match(body, '"mfaPendingCredential":"([^"]+)"')
    enrollment = string.match(body, '"mfaEnrollmentId":"([^"]+)"')
    state = 1
  elseif state == 1 then
    session = string.match(body, '"sessionInfo":"([^"]+)"')
    state = 2
  elseif state == 2 then
    code = string.match(body, '"code":"(%d+)"')
    state = code and 3 or 2
  else
    state = 0
  end
end
