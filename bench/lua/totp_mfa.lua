-- TOTP second-factor sign-in, three requests a flow: password -> read the current code from the
-- emulator's helper (a test would compute it from the secret) -> mfaSignIn:finalize.
-- Each thread signs in its own user; the bench turns TOTP replay protection off for this.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local project = os.getenv("BENCH_PROJECT")
local state, pending, enrollment, code = 0, nil, nil, nil

function request()
  if state == 0 then
    return json_post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=k",
      string.format('{"email":"totp%d@bench.test","password":"secret123"}', tid))
  elseif state == 1 then
    return wrk.format("GET", string.format("/emulator/v1/projects/%s/totpCodes?localId=totp%d", project, tid))
  else
    return json_post("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize?key=k",
      '{"mfaPendingCredential":"' .. pending .. '","mfaEnrollmentId":"' .. enrollment ..
      '","totpVerificationInfo":{"verificationCode":"' .. code .. '"}}')
  end
end

function response(status, headers, body)
  if status ~= 200 then state = 0 return end
  if state == 0 then
    pending = string.match(body, '"mfaPendingCredential":"([^"]+)"')
    enrollment = string.match(body, '"mfaEnrollmentId":"([^"]+)"')
    state = 1
  elseif state == 1 then
    code = string.match(body, '"code":"(%d+)"')
    state = code and 2 or 1
  else
    state = 0
  end
end
