"""The clock tests can move, against the built binary: every expiry the README lists, the CLI,
and the offset kept across a restart. A daemon of its own, so no moved time leaks to other tests."""
import subprocess
import time
from datetime import datetime, timezone

import pytest
import requests

from conftest import BINARY, PROJECT, Api, Daemon, error_message, ok
from test_mfa import claims as decode_claims, enable_totp, totp, v2, verified_email_user

SMS = f"/emulator/v1/projects/{PROJECT}/smsMessages"


@pytest.fixture(scope="module")
def clock_daemon(tmp_path_factory):
    daemon = Daemon(tmp_path_factory.mktemp("clock"), ephemeral=False).start()
    yield daemon
    daemon.stop()


@pytest.fixture
def capi(clock_daemon):
    requests.delete(f"{clock_daemon.base}/emulator/v1/projects/{PROJECT}/accounts").raise_for_status()
    requests.post(f"{clock_daemon.base}/emulator/v1/clock:reset").raise_for_status()
    yield Api(clock_daemon.base)
    requests.post(f"{clock_daemon.base}/emulator/v1/clock:reset").raise_for_status()


def advance(api, seconds):
    moved = requests.post(f"{api.base}/emulator/v1/clock:advance", json={"seconds": seconds})
    assert moved.status_code == 200, moved.text
    return moved.json()


def daemon_now(api):
    return datetime.fromisoformat(requests.get(f"{api.base}/emulator/v1/clock").json()["now"].replace("Z", "+00:00"))


def cli(*args, daemon):
    return subprocess.run([BINARY, *args, "--url", daemon.base], capture_output=True, text=True, timeout=30)


def sms_code(api, phone, purpose=None):
    params = {"phoneNumber": phone}
    if purpose:
        params["purpose"] = purpose
    return requests.get(f"{api.base}{SMS}", params=params).json()["smsMessages"][-1]["code"]


def test_id_token_expires_after_an_hour_and_a_refresh_gives_a_new_one(capi):
    user = capi.v1("accounts:signUp", {"email": "t@example.com", "password": "secret123",
                                       "returnSecureToken": True}).json()
    advance(capi, 3601)
    for operation, body in [("accounts:lookup", {}), ("accounts:update", {"displayName": "x"})]:
        reply = capi.v1(operation, {"idToken": user["idToken"], **body})
        assert (reply.status_code, error_message(reply)) == (400, "TOKEN_EXPIRED")
    mfa = v2(capi, "mfaEnrollment:start", {"idToken": user["idToken"],
                                           "phoneEnrollmentInfo": {"phoneNumber": "+15555550140"}})
    assert error_message(mfa) == "TOKEN_EXPIRED"
    refreshed = requests.post(f"{capi.base}/securetoken.googleapis.com/v1/token", params={"key": "k"},
                              data={"grant_type": "refresh_token", "refresh_token": user["refreshToken"]})
    assert refreshed.status_code == 200
    assert capi.v1("accounts:lookup", {"idToken": refreshed.json()["id_token"]}).status_code == 200


def test_sms_code_lifetime_and_quota_window(capi):
    sent = capi.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550141"}).json()
    code = sms_code(capi, "+15555550141")
    advance(capi, 601)
    late = capi.v1("accounts:signInWithPhoneNumber", {"sessionInfo": sent["sessionInfo"], "code": code})
    assert error_message(late) == "SESSION_EXPIRED"
    quota = capi.admin("PATCH", f"v2/projects/{PROJECT}/config", {"emulatorSettings": {"smsQuotaPerNumberPerHour": 1}},
                       params={"updateMask": "emulatorSettings.smsQuotaPerNumberPerHour"})
    assert quota.status_code == 200
    try:
        assert capi.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550142"}).status_code == 200
        over = capi.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550142"})
        assert error_message(over).startswith("QUOTA_EXCEEDED")
        advance(capi, 3601)
        assert capi.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550142"}).status_code == 200
    finally:
        ok(capi.admin("PATCH", f"v2/projects/{PROJECT}/config", {"emulatorSettings": {"smsQuotaPerNumberPerHour": 0}},
                      params={"updateMask": "emulatorSettings.smsQuotaPerNumberPerHour"}))


def test_totp_steps_enrollment_sessions_and_the_cli_follow_the_moved_clock(capi, clock_daemon):
    enable_totp(capi)
    user = verified_email_user(capi, "totp-clock@example.com")
    started = v2(capi, "mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}}).json()
    info = started["totpSessionInfo"]
    advance(capi, 601)
    late = v2(capi, "mfaEnrollment:finalize", {"idToken": user["idToken"], "totpVerificationInfo": {
        "sessionInfo": info["sessionInfo"], "verificationCode": totp(info["sharedSecretKey"], time.time() + 601)}})
    assert error_message(late) == "SESSION_EXPIRED"
    user = capi.v1("accounts:signInWithPassword", {"email": "totp-clock@example.com", "password": "secret123",
                                                   "returnSecureToken": True}).json()
    info = v2(capi, "mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}}).json()[
        "totpSessionInfo"]
    secret = info["sharedSecretKey"]
    moved = daemon_now(capi).timestamp()
    assert abs(moved - (time.time() + 601)) < 5
    printed = cli("totp", secret, daemon=clock_daemon)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.strip() in {totp(secret, moved), totp(secret, moved + 1)}
    # adjacentIntervals 5 is ±150 s: finalize takes the code only because it is of the moved time.
    done = v2(capi, "mfaEnrollment:finalize", {"idToken": user["idToken"], "totpVerificationInfo": {
        "sessionInfo": info["sessionInfo"], "verificationCode": printed.stdout.strip()}})
    assert done.status_code == 200, done.text
    helper = requests.get(f"{capi.base}/emulator/v1/projects/{PROJECT}/totpCodes",
                          params={"localId": user["localId"]}).json()
    assert helper["code"] in {totp(secret, daemon_now(capi).timestamp()), totp(secret, daemon_now(capi).timestamp() - 1)}


def test_pending_mfa_credential_and_email_action_codes_expire(capi):
    user = verified_email_user(capi, "pending@example.com")
    started = v2(capi, "mfaEnrollment:start", {"idToken": user["idToken"],
                                               "phoneEnrollmentInfo": {"phoneNumber": "+15555550143"}}).json()
    code = sms_code(capi, "+15555550143", "MFA_ENROLLMENT")
    assert v2(capi, "mfaEnrollment:finalize", {"idToken": user["idToken"], "phoneVerificationInfo": {
        "sessionInfo": started["phoneSessionInfo"]["sessionInfo"], "code": code}}).status_code == 200
    first = capi.v1("accounts:signInWithPassword", {"email": "pending@example.com", "password": "secret123"}).json()
    advance(capi, 601)
    late = v2(capi, "mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                        "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
                                        "phoneSignInInfo": {"phoneNumber": "+15555550143"}})
    assert error_message(late) == "INVALID_MFA_PENDING_CREDENTIAL"
    link = capi.v1("accounts:sendOobCode", {"requestType": "PASSWORD_RESET", "email": "pending@example.com",
                                            "returnOobLink": True}, admin=True).json()["oobLink"]
    oob = link.split("oobCode=")[1].split("&")[0]
    advance(capi, 3600)
    expired = capi.v1("accounts:resetPassword", {"oobCode": oob, "newPassword": "another123"})
    assert (expired.status_code, error_message(expired)) == (400, "EXPIRED_OOB_CODE")


def test_created_at_and_outbox_times_follow_the_clock(capi):
    requests.post(f"{capi.base}/emulator/v1/clock:set", json={"time": "2030-01-01T00:00:00Z"}).raise_for_status()
    user = capi.v1("accounts:signUp", {"email": "future@example.com", "password": "secret123",
                                       "returnSecureToken": True}).json()
    found = capi.v1("accounts:lookup", {"idToken": user["idToken"]}).json()["users"][0]
    assert int(found["createdAt"]) // 1000 in range(1893456000, 1893456005)
    assert int(found["lastLoginAt"]) // 1000 in range(1893456000, 1893456005)
    ok(capi.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550144"}))
    sent = requests.get(f"{capi.base}{SMS}", params={"phoneNumber": "+15555550144"}).json()["smsMessages"][-1]
    assert sent["sentAt"].startswith("2030-01-01T00:00:0")


def test_cli_and_the_offset_across_a_restart(capi, clock_daemon):
    shown = cli("clock", daemon=clock_daemon)
    assert shown.returncode == 0 and shown.stdout.strip().endswith("(offset 0 s)")
    moved = cli("clock", "advance", "1h30m", daemon=clock_daemon)
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.strip().endswith("(offset 5400 s)")
    bad = cli("clock", "advance", "soon", daemon=clock_daemon)
    assert bad.returncode != 0 and "DURATION must look like" in bad.stderr
    refused = cli("clock", "set", "next tuesday", daemon=clock_daemon)
    assert refused.returncode == 1
    assert refused.stderr.strip() == ("authemu clock: INVALID_TIME : time must be an RFC 3339 date-time, "
                                      "e.g. 2030-01-01T00:00:00Z.")
    assert cli("clock", "set", "2031-06-01T12:00:00Z", daemon=clock_daemon).stdout.startswith(
        "2031-06-01T12:00:00")
    clock_daemon.stop()
    clock_daemon.start()
    root = requests.get(f"{clock_daemon.base}/").json()["authEmulator"]["clock"]
    assert root["now"].startswith("2031-06-01T12:0")
    assert root["offsetSeconds"] > 0
    reset = cli("clock", "reset", daemon=clock_daemon)
    assert reset.stdout.strip().endswith("(offset 0 s)")
    assert abs(daemon_now(capi).timestamp() - datetime.now(timezone.utc).timestamp()) < 5


def test_a_frozen_clock_stands_still_for_stored_times_tokens_the_cli_and_a_restart(capi, clock_daemon):
    frozen = requests.post(f"{capi.base}/emulator/v1/clock:set", json={"time": "2030-01-01T00:00:00Z",
                                                                       "freeze": True})
    assert frozen.status_code == 200, frozen.text
    assert (frozen.json()["now"], frozen.json()["frozen"]) == ("2030-01-01T00:00:00.000Z", True)
    enable_totp(capi)
    user = verified_email_user(capi, "frozen@example.com")
    claims = decode_claims(user["idToken"])
    assert (claims["iat"], claims["auth_time"], claims["exp"]) == (1893456000, 1893456000, 1893459600)
    started = v2(capi, "mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}}).json()
    secret = started["totpSessionInfo"]["sharedSecretKey"]
    assert started["totpSessionInfo"]["finalizeEnrollmentTime"] == "2030-01-01T00:10:00.000Z"
    finalized = v2(capi, "mfaEnrollment:finalize", {"idToken": user["idToken"], "totpVerificationInfo": {
        "sessionInfo": started["totpSessionInfo"]["sessionInfo"], "verificationCode": totp(secret, 1893456000)}})
    assert finalized.status_code == 200, finalized.text
    found = capi.v1("accounts:lookup", {"idToken": finalized.json()["idToken"]}).json()["users"][0]
    assert (found["createdAt"], found["lastLoginAt"]) == ("1893456000000", "1893456000000")
    assert found["mfaInfo"][0]["enrolledAt"] == "2030-01-01T00:00:00.000Z"

    shown = cli("clock", daemon=clock_daemon)
    assert shown.stdout.startswith("2030-01-01T00:00:00.000Z (offset ") and shown.stdout.strip().endswith(
        " s, frozen)")
    clock_daemon.stop()
    clock_daemon.start()
    assert requests.get(f"{clock_daemon.base}/emulator/v1/clock").json()["now"] == "2030-01-01T00:00:00.000Z"
    again = cli("clock", "freeze", "2031-06-01T12:00:00Z", daemon=clock_daemon)
    assert again.returncode == 0 and again.stdout.startswith("2031-06-01T12:00:00.000Z (offset ")
    resumed = cli("clock", "resume", daemon=clock_daemon)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.startswith("2031-06-01T12:00:0") and not resumed.stdout.strip().endswith("frozen)")
    assert requests.get(f"{clock_daemon.base}/emulator/v1/clock").json()["frozen"] is False
