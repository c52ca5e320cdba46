"""Production's lockouts against the built binary, with the bodies the SDKs send: wrong passwords
(JS v1, iOS v3) lock password sign-in with production's message; wrong TOTP codes on a tenant lock
the factor; the emulator's clock ends both. The JS SDK maps the answer to auth/too-many-requests
(checked by hand with the SDK built from source; see docs/security.md)."""
from datetime import datetime

import requests

from conftest import PROJECT, error_message, ok
from test_mfa import enable_totp, totp, v2, verified_email_user

LOCKED = ("TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled due to many failed "
          "login attempts. You can immediately restore it by resetting your password or you can try again later.")


def advance(api, seconds):
    ok(requests.post(f"{api.base}/emulator/v1/clock:advance", json={"seconds": seconds}))


def daemon_time(api):
    now = requests.get(f"{api.base}/emulator/v1/clock").json()["now"]
    return datetime.fromisoformat(now.replace("Z", "+00:00")).timestamp()


def settings(api, values, tenant=None):
    path = f"v2/projects/{PROJECT}/tenants/{tenant}" if tenant else f"v2/projects/{PROJECT}/config"
    ok(api.admin("PATCH", path, {"emulatorSettings": values}, params={"updateMask": "emulatorSettings"}))


def test_wrong_passwords_lock_the_js_and_ios_sign_in_until_the_clock_moves_on(api):
    settings(api, {"passwordMaxAttempts": 3, "passwordLockoutSeconds": 600})
    ok(api.v1("accounts:signUp", {"email": "locked@example.com", "password": "secret123", "returnSecureToken": True}))
    js = {"returnSecureToken": True, "email": "locked@example.com", "clientType": "CLIENT_TYPE_WEB"}
    ios = {"email": "locked@example.com", "returnSecureToken": True}
    first = api.v1("accounts:signInWithPassword", {**js, "password": "wrong-one"})
    assert first.status_code == 400 and error_message(first) == "INVALID_PASSWORD"
    second = api.v3("verifyPassword", {**ios, "password": "wrong-two"})
    assert second.status_code == 400 and error_message(second) == "INVALID_PASSWORD"
    third = api.v1("accounts:signInWithPassword", {**js, "password": "wrong-three"})
    assert third.status_code == 400 and third.json()["error"]["message"] == LOCKED
    for right in (api.v1("accounts:signInWithPassword", {**js, "password": "secret123"}),
                  api.v3("verifyPassword", {**ios, "password": "secret123"})):
        assert right.status_code == 400 and error_message(right) == LOCKED
    advance(api, 601)
    after = api.v1("accounts:signInWithPassword", {**js, "password": "secret123"})
    assert after.status_code == 200 and after.json()["email"] == "locked@example.com"


def test_wrong_totp_codes_lock_a_tenant_users_factor(api):
    enable_totp(api, tenant="t-lock")
    settings(api, {"mfaMaxAttempts": 2, "mfaLockoutSeconds": 300, "mfaPendingCredentialLifetimeSeconds": 3600},
             tenant="t-lock")
    user = verified_email_user(api, "factor@example.com", tenant="t-lock")
    started = v2(api, "mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {},
                                              "tenantId": "t-lock"})
    secret = started.json()["totpSessionInfo"]["sharedSecretKey"]
    ok(v2(api, "mfaEnrollment:finalize", {
        "idToken": user["idToken"], "tenantId": "t-lock",
        "totpVerificationInfo": {"sessionInfo": started.json()["totpSessionInfo"]["sessionInfo"],
                                 "verificationCode": totp(secret, daemon_time(api))}}))
    first = ok(api.v1("accounts:signInWithPassword", {"email": "factor@example.com", "password": "secret123",
                                                       "tenantId": "t-lock", "returnSecureToken": True})).json()
    factor = first["mfaInfo"][0]["mfaEnrollmentId"]

    def finalize(code):
        return v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                              "mfaEnrollmentId": factor, "tenantId": "t-lock",
                                              "totpVerificationInfo": {"verificationCode": code}})
    right = totp(secret, daemon_time(api) + 30)
    wrong = "000000" if right != "000000" else "111111"
    assert error_message(finalize(wrong)) == "INVALID_CODE"
    locked = finalize(wrong)
    assert locked.status_code == 400 and error_message(locked) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    assert error_message(finalize(right)) == "TOO_MANY_ATTEMPTS_TRY_LATER"
    # The lock ends on the emulator's clock; a fresh pending credential then signs in.
    advance(api, 301)
    again = ok(api.v1("accounts:signInWithPassword", {"email": "factor@example.com", "password": "secret123",
                                                       "tenantId": "t-lock", "returnSecureToken": True})).json()
    done = v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": again["mfaPendingCredential"],
                                          "mfaEnrollmentId": factor, "tenantId": "t-lock",
                                          "totpVerificationInfo": {"verificationCode": totp(secret, daemon_time(api))}})
    assert done.status_code == 200 and "idToken" in done.json(), done.text
