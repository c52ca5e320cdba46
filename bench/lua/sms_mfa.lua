-- SMS second-factor sign-in, four requests a flow: password -> mfaSignIn:start -> read the code
-- from the outbox -> mfaSignIn:finalize. Each thread signs in its own user (mfa<tid>@bench.test).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local project = os.getenv("BENCH_PROJECT")

run_flow({
  mfa_password_step("mfa%d@bench.test"),
  { request = function(v)
      return json_post("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start?key=k",
        '{"mfaPendingCredential":"' .. v.pending .. '","mfaEnrollmentId":"' .. v.enrollment .. '"}')
    end, capture = { session = '"sessionInfo":"([^"]+)"' } },
  { request = function(v)
      return wrk.format("GET", string.format(
        "/emulator/v1/projects/%s/smsMessages?status=PENDING&purpose=MFA_SIGN_IN&phoneNumber=%%2B155599%05d",
        project, tid))
    end, capture = { code = '"code":"(%d+)"' } },
  { request = function(v)
      return json_post("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize?key=k",
        '{"mfaPendingCredential":"' .. v.pending .. '","phoneVerificationInfo":{"sessionInfo":"' .. v.session ..
        '","code":"' .. v.code .. '"}}')
    end },
})
