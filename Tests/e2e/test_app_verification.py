"""App-verification stubs with the request bodies of reference/client-protocol.md §1.1 and §6."""
import json

import pytest
import requests

from conftest import PROJECT, error_message, ok

EMULATOR = f"/emulator/v1/projects/{PROJECT}"


@pytest.fixture
def enforce(api):
    def configure(phone="OFF", email="OFF"):
        response = api.admin("PATCH", f"v2/projects/{PROJECT}/config", {
            "emulatorSettings": {"appVerification": "enforce"},
            "recaptchaConfig": {"phoneEnforcementState": phone, "emailPasswordEnforcementState": email,
                                "recaptchaKeys": [{"type": "IOS", "key": "ios-key"}]}},
            params={"updateMask": "emulatorSettings.appVerification,recaptchaConfig"})
        assert response.status_code == 200, response.text
    yield configure
    ok(api.admin("PATCH", f"v2/projects/{PROJECT}/config", {"emulatorSettings": {"appVerification": "off"},
                                                             "recaptchaConfig": {}},
                 params={"updateMask": "emulatorSettings.appVerification,recaptchaConfig"}))


def mint(api, kind, valid=True):
    return requests.post(f"{api.base}{EMULATOR}/appCredentials", json={"kind": kind, "valid": valid}).json()["token"]


def last_path(api):
    return requests.get(f"{api.base}{EMULATOR}/smsMessages").json()["smsMessages"][-1]["verificationPath"]


def test_ios_apns_push_path(api, enforce, tmp_path):
    enforce()
    ok(requests.delete(f"{api.base}{EMULATOR}/apnsPushes"))
    verified = api.v3("verifyClient", {"appToken": "c0ffee", "isSandbox": True})
    assert verified.status_code == 200, verified.text
    assert isinstance(verified.json()["suggestedTimeout"], str)
    push = requests.get(f"{api.base}{EMULATOR}/apnsPushes", params={"wait": 5}).json()["apnsPushes"][-1]
    payload = push["payload"]
    assert payload["aps"] == {"content-available": 1}
    assert payload["com.google.firebase.auth"]["receipt"] == verified.json()["receipt"]
    # What `xcrun simctl push <device> <bundle> push.json` takes: saved as a file, it is plain JSON.
    (tmp_path / "push.json").write_text(json.dumps(push["simctlPayload"]))
    assert json.loads((tmp_path / "push.json").read_text())["aps"]["content-available"] == 1
    body = {"phoneNumber": "+15555550180", "iosReceipt": verified.json()["receipt"],
            "iosSecret": payload["com.google.firebase.auth"]["secret"], "clientType": "CLIENT_TYPE_IOS"}
    assert api.v3("sendVerificationCode", body).status_code == 200
    assert last_path(api) == "apns"
    assert error_message(api.v3("sendVerificationCode", {**body, "iosSecret": "wrong"})) == "INVALID_APP_CREDENTIAL"


def test_ios_push_never_arrives_then_recaptcha_fallback(api, enforce):
    enforce()
    ok(requests.post(f"{api.base}{EMULATOR}/appVerification:failNext", json={"fault": "APNS_PUSH", "count": 1}))
    ok(requests.delete(f"{api.base}{EMULATOR}/apnsPushes"))
    ok(api.v3("verifyClient", {"appToken": "lost-device", "isSandbox": True}))
    assert requests.get(f"{api.base}{EMULATOR}/apnsPushes", params={"wait": 0.3}).json()["apnsPushes"] == []
    token = mint(api, "RECAPTCHA_V2")
    fallback = api.v3("sendVerificationCode", {"phoneNumber": "+15555550181", "recaptchaToken": token,
                                               "clientType": "CLIENT_TYPE_IOS"})
    assert fallback.status_code == 200, fallback.text
    assert last_path(api) == "recaptcha"


def test_ios_and_js_recaptcha_enterprise(api, enforce):
    enforce(phone="ENFORCE")
    config = api.session.get(f"{api.base}/identitytoolkit.googleapis.com/v2/recaptchaConfig",
                             params={"key": "k", "clientType": "CLIENT_TYPE_IOS", "version": "RECAPTCHA_ENTERPRISE"})
    assert config.json()["recaptchaKey"] == f"projects/{PROJECT}/keys/ios-key"
    assert all(isinstance(e["enforcementState"], str) for e in config.json()["recaptchaEnforcementState"])
    ios = {"phoneNumber": "+15555550182", "captchaResponse": "NO_RECAPTCHA",
           "recaptchaVersion": "RECAPTCHA_ENTERPRISE", "clientType": "CLIENT_TYPE_IOS"}
    assert error_message(api.v3("sendVerificationCode", ios)) == "MISSING_RECAPTCHA_TOKEN"
    ios["captchaResponse"] = mint(api, "RECAPTCHA_ENTERPRISE")
    assert api.v3("sendVerificationCode", ios).status_code == 200
    assert last_path(api) == "recaptcha-enterprise"

    enforce(phone="AUDIT")
    # JS in AUDIT: the Enterprise token fails, the SDK retries with the v2 form.
    js = {"phoneNumber": "+15555550183", "clientType": "CLIENT_TYPE_WEB", "captchaResponse": "NO_RECAPTCHA",
          "recaptchaVersion": "RECAPTCHA_ENTERPRISE"}
    assert error_message(api.v1("accounts:sendVerificationCode", js)) == "MISSING_RECAPTCHA_TOKEN"
    retried = api.v1("accounts:sendVerificationCode", {**js, "recaptchaToken": mint(api, "RECAPTCHA_V2")})
    assert retried.status_code == 200
    assert last_path(api) == "recaptcha"


def test_android_play_integrity(api, enforce):
    enforce()
    body = {"phoneNumber": "+15555550184", "playIntegrityToken": mint(api, "PLAY_INTEGRITY"),
            "autoRetrievalInfo": {"appSignatureHash": "abc123"}, "clientType": "CLIENT_TYPE_ANDROID"}
    assert api.v1("accounts:sendVerificationCode", body).status_code == 200
    assert last_path(api) == "play-integrity"
    invalid = {**body, "playIntegrityToken": mint(api, "PLAY_INTEGRITY", valid=False)}
    assert error_message(api.v1("accounts:sendVerificationCode", invalid)) == "INVALID_APP_CREDENTIAL"
    bare = {"phoneNumber": "+15555550184", "clientType": "CLIENT_TYPE_ANDROID"}
    assert error_message(api.v1("accounts:sendVerificationCode", bare)) == "MISSING_CLIENT_IDENTIFIER"


def test_default_off_policy_accepts_emulator_mode_bodies(api):
    body = {"phoneNumber": "+15555550185", "clientType": "CLIENT_TYPE_WEB", "captchaResponse": "NO_RECAPTCHA",
            "recaptchaVersion": "RECAPTCHA_ENTERPRISE", "recaptchaToken": "anything"}
    assert api.v1("accounts:sendVerificationCode", body).status_code == 200
    assert last_path(api) == "none"
    params = requests.get(f"{api.base}/identitytoolkit.googleapis.com/v1/recaptchaParams", params={"key": "k"}).json()
    assert params["recaptchaSiteKey"]
