"""Phone sign-in with the JS and iOS SDK bodies, the SMS outbox, `authemu codes`, test numbers."""
import subprocess
import threading
import time

import requests

from conftest import BINARY, PROJECT, Api, Daemon, error_message, ok

PHONE = "+15555550100"
JS_SEND = {"phoneNumber": PHONE, "clientType": "CLIENT_TYPE_WEB", "captchaResponse": "NO_RECAPTCHA",
           "recaptchaVersion": "RECAPTCHA_ENTERPRISE", "recaptchaToken": "fake-recaptcha-token"}


def outbox(api, **params):
    response = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/smsMessages", params=params)
    assert response.status_code == 200, response.text
    return response.json()["smsMessages"]


def test_js_phone_sign_in_link_and_reauth(api):
    requests.delete(f"{api.base}/emulator/v1/projects/{PROJECT}/smsMessages").raise_for_status()
    session = api.v1("accounts:sendVerificationCode", JS_SEND).json()["sessionInfo"]
    message = outbox(api, phoneNumber=PHONE)[-1]
    assert message["sessionInfo"] == session
    signed_in = api.v1("accounts:signInWithPhoneNumber", {"sessionInfo": session, "code": message["code"]})
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["isNewUser"] is True

    session = api.v1("accounts:sendVerificationCode", JS_SEND).json()["sessionInfo"]
    code = outbox(api, phoneNumber=PHONE, status="PENDING")[-1]["code"]
    reauth = api.v1("accounts:signInWithPhoneNumber", {"sessionInfo": session, "code": code, "operation": "REAUTH"})
    assert reauth.json()["localId"] == signed_in.json()["localId"]

    email_user = api.v1("accounts:signUp", {"email": "phone-link@example.com", "password": "secret123"}).json()
    session = api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": "+15555550101"}).json()["sessionInfo"]
    code = outbox(api, phoneNumber="+15555550101")[-1]["code"]
    linked = api.v1("accounts:signInWithPhoneNumber", {"idToken": email_user["idToken"], "sessionInfo": session,
                                                       "code": code})
    assert linked.status_code == 200
    assert linked.json()["localId"] == email_user["localId"]
    lookup = api.v1("accounts:lookup", {"idToken": linked.json()["idToken"]}).json()["users"][0]
    assert lookup["phoneNumber"] == "+15555550101"
    assert outbox(api, phoneNumber="+15555550101")[-1]["usedFor"] == "LINK"


def test_ios_emulator_mode_bodies_on_v3_paths(api):
    sent = api.v3("sendVerificationCode", {"phoneNumber": "+15555550102", "clientType": "CLIENT_TYPE_IOS"})
    assert sent.status_code == 200, sent.text
    code = outbox(api, phoneNumber="+15555550102")[-1]["code"]
    wrong = api.v3("verifyPhoneNumber", {"sessionInfo": sent.json()["sessionInfo"], "code": "99999999",
                                         "operation": "SIGN_UP_OR_IN"})
    assert error_message(wrong) == "INVALID_CODE"
    verified = api.v3("verifyPhoneNumber", {"sessionInfo": sent.json()["sessionInfo"], "code": code,
                                            "operation": "SIGN_UP_OR_IN"})
    assert verified.status_code == 200
    assert verified.json()["phoneNumber"] == "+15555550102"
    assert verified.json()["expiresIn"] == "3600"


def test_long_poll_waits_for_the_message(api):
    number = "+15555550103"
    result = {}

    def reader():
        started = time.monotonic()
        result["messages"] = outbox(api, phoneNumber=number, wait=10)
        result["elapsed"] = time.monotonic() - started

    thread = threading.Thread(target=reader)
    thread.start()
    time.sleep(0.3)  # the reader must be parked in the long poll before the SMS is sent
    ok(api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": number}))
    thread.join(timeout=15)
    assert [m["phoneNumber"] for m in result["messages"]] == [number]
    assert result["elapsed"] < 9


def test_codes_command(daemon, api):
    number = "+15555550104"
    ok(api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": number}))
    expected = outbox(api, phoneNumber=number)[-1]["code"]
    shell = subprocess.run(
        ["bash", "-c", f'code=$("{BINARY}" codes --url {daemon.base} --project {PROJECT} --phone "{number}" '
                       f'--wait 5) && echo "got $code"'],
        capture_output=True, text=True, timeout=30)
    assert shell.returncode == 0, shell.stderr
    assert shell.stdout.strip() == f"got {expected}"
    missing = subprocess.run([BINARY, "codes", "--url", daemon.base, "--project", PROJECT, "--phone", "+15555550999",
                              "--wait", "0.2"], capture_output=True, text=True, timeout=30)
    assert missing.returncode == 1
    assert "no pending SMS code for +15555550999" in missing.stderr


def test_test_numbers_from_the_config_file(tmp_path):
    config = tmp_path / "authemu.yaml"
    config.write_text(f"""
projects:
  {PROJECT}:
    config:
      signIn:
        phoneNumber:
          testPhoneNumbers:
            "+15555550150": "654321"
    tenants:
      tenant-sms:
        allowPasswordSignup: true
        testPhoneNumbers:
          "+15555550151": "111222"
""")
    daemon = Daemon(tmp_path, extra=["--config", str(config)]).start()
    try:
        api = Api(daemon.base)
        session = api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": "+15555550150"}).json()
        message = outbox(api, phoneNumber="+15555550150")[-1]
        assert message["code"] == "654321"
        assert message["testNumber"] is True
        assert api.v1("accounts:signInWithPhoneNumber",
                      {"sessionInfo": session["sessionInfo"], "code": "654321"}).status_code == 200
        tenant_session = api.v1("accounts:sendVerificationCode",
                                {**JS_SEND, "phoneNumber": "+15555550151", "tenantId": "tenant-sms"}).json()
        signed_in = api.v1("accounts:signInWithPhoneNumber", {"sessionInfo": tenant_session["sessionInfo"],
                                                              "code": "111222", "tenantId": "tenant-sms"})
        assert signed_in.status_code == 200, signed_in.text
    finally:
        daemon.stop()


def test_test_numbers_through_the_tenant_api(api):
    tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "SMS"}).json()["tenantId"]
    patched = api.admin("PATCH", f"v2/projects/{PROJECT}/tenants/{tenant}",
                        {"testPhoneNumbers": {"+15555550160": "999000"}}, params={"updateMask": "testPhoneNumbers"})
    assert patched.status_code == 200
    session = api.v1("accounts:sendVerificationCode",
                     {"phoneNumber": "+15555550160", "clientType": "CLIENT_TYPE_IOS", "tenantId": tenant}).json()
    signed_in = api.v1("accounts:signInWithPhoneNumber",
                       {"sessionInfo": session["sessionInfo"], "code": "999000", "tenantId": tenant})
    assert signed_in.status_code == 200, signed_in.text


def test_bad_config_file_stops_startup(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("projects:\n  p1:\n    config:\n      signIn:\n        phoneNumber:\n"
                      "          testPhoneNumbers:\n            '+1555': '123456'\n")
    run = subprocess.run([BINARY, "serve", "--ephemeral", "--port", "0", "--config", str(config)],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    assert "projects.p1.config: INVALID_CONFIG : Invalid test phone number: +1555" in run.stderr
    config.write_text("port: lots\n")
    run = subprocess.run([BINARY, "serve", "--ephemeral", "--config", str(config)],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode != 0
    assert "key 'port' must be an integer" in run.stderr


def test_log_line_update_and_temporary_proof(daemon, api):
    owner_phone = "+15555550170"
    session = api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": owner_phone}).json()["sessionInfo"]
    code = outbox(api, phoneNumber=owner_phone)[-1]["code"]
    # The firebase-tools console wording, which existing log scrapers read.
    assert f"To verify the phone number {owner_phone}, use the code {code}." in daemon.log.read_text()
    owner = api.v1("accounts:signInWithPhoneNumber", {"sessionInfo": session, "code": code}).json()

    # iOS updatePhoneNumber: verifyPhoneNumber with idToken and operation UPDATE.
    other = api.v1("accounts:signUp", {"email": "upd@example.com", "password": "secret123"}).json()
    session = api.v3("sendVerificationCode", {"phoneNumber": "+15555550171", "clientType": "CLIENT_TYPE_IOS"}
                     ).json()["sessionInfo"]
    code = outbox(api, phoneNumber="+15555550171")[-1]["code"]
    updated = api.v3("verifyPhoneNumber", {"sessionInfo": session, "code": code, "idToken": other["idToken"],
                                           "operation": "UPDATE"})
    assert updated.json()["phoneNumber"] == "+15555550171"
    assert outbox(api, phoneNumber="+15555550171")[-1]["usedFor"] == "UPDATE"

    # Linking the owner's number to the other account: 200 with a temporary proof, no tokens.
    session = api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": owner_phone}).json()["sessionInfo"]
    code = outbox(api, phoneNumber=owner_phone, status="PENDING")[-1]["code"]
    conflict = api.v1("accounts:signInWithPhoneNumber", {"sessionInfo": session, "code": code,
                                                         "idToken": updated.json()["idToken"]}).json()
    assert "idToken" not in conflict
    assert conflict["phoneNumber"] == owner_phone
    signed_in = api.v1("accounts:signInWithPhoneNumber", {"temporaryProof": conflict["temporaryProof"],
                                                          "phoneNumber": owner_phone}).json()
    assert signed_in["localId"] == owner["localId"]


def test_sms_region_policy_from_the_config_file_and_the_tenant_api(tmp_path):
    refused = "OPERATION_NOT_ALLOWED : SMS unable to be sent until this region enabled by the app developer."
    config = tmp_path / "regions.yaml"
    config.write_text(f"""projects:
  {PROJECT}:
    config:
      smsRegionConfig:
        allowlistOnly: {{ allowedRegions: [GB, US] }}
""")
    daemon = Daemon(tmp_path, extra=["--config", str(config)]).start()
    try:
        api = Api(daemon.base)
        assert api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": "+447700900123"}).status_code == 200
        assert api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": "+15555550180"}).status_code == 200
        toronto = api.v1("accounts:sendVerificationCode", {**JS_SEND, "phoneNumber": "+14165550123"})
        assert toronto.status_code == 400
        assert error_message(toronto) == refused
        assert outbox(api, phoneNumber="+14165550123") == []
        # The Node Admin SDK's updateTenant body and leaf mask for a denylist.
        tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "regions"}).json()["tenantId"]
        patched = api.admin("PATCH", f"v2/projects/{PROJECT}/tenants/{tenant}",
                            {"smsRegionConfig": {"allowByDefault": {"disallowedRegions": ["GB"]}}},
                            params={"updateMask": "smsRegionConfig.allowByDefault.disallowedRegions"})
        assert patched.status_code == 200, patched.text
        assert patched.json()["smsRegionConfig"] == {"allowByDefault": {"disallowedRegions": ["GB"]}}
        london = api.v1("accounts:sendVerificationCode",
                        {**JS_SEND, "phoneNumber": "+447700900124", "tenantId": tenant})
        assert error_message(london) == refused
        assert api.v1("accounts:sendVerificationCode",
                      {**JS_SEND, "phoneNumber": "+14165550124", "tenantId": tenant}).status_code == 200
    finally:
        daemon.stop()
    config.write_text(f"projects:\n  {PROJECT}:\n    config:\n      smsRegionConfig:\n"
                      "        allowlistOnly: { allowedRegions: [usa] }\n")
    run = subprocess.run([BINARY, "serve", "--ephemeral", "--port", "0", "--config", str(config)],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    assert (f"projects.{PROJECT}.config: INVALID_CONFIG : smsRegionConfig.allowlistOnly.allowedRegions must hold "
            'ISO 3166 alpha-2 region codes, e.g. "US"') in run.stderr
