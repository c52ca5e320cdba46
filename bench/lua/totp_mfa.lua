-- TOTP second-factor sign-in, three requests a flow: password -> read the current code from the
-- emulator's helper (a test would compute it from the secret) -> mfaSignIn:finalize.
-- Each thread signs in its own user; the bench turns TOTP replay protection off for this.
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
local project = os.getenv("BENCH_PROJECT")

run_flow({
  mfa_password_step("totp%d@bench.test"),
  { request = function(v)
      return wrk.format("GET", string.format("/emulator/v1/projects/%s/totpCodes?localId=totp%d", project, tid))
    end, capture = { code = '"code":"(%d+)"' } },
  { request = function(v)
      return json_post("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize?key=k",
        '{"mfaPendingCredential":"' .. v.pending .. '","mfaEnrollmentId":"' .. v.enrollment ..
        '","totpVerificationInfo":{"verificationCode":"' .. v.code .. '"}}')
    end },
})
