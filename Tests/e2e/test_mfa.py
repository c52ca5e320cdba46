"""The Identity Platform TOTP and SMS MFA guides, with the JS and iOS SDK bodies, on projects and tenants."""
import base64
import hashlib
import hmac
import json
import struct
import time

import requests

from conftest import PROJECT, error_message, ok


def totp(secret, at=None, step=30, digits=6):
    """RFC 6238 computed independently of authemu (as the JS integration test does with totp-generator)."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    counter = int((time.time() if at is None else at) // step)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = (struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % (10 ** digits)
    return str(value).zfill(digits)


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def v2(api, operation, body):
    return api.session.post(f"{api.base}/identitytoolkit.googleapis.com/v2/accounts/{operation}",
                            params={"key": "fake-api-key"}, json=body)


def enable_totp(api, tenant=None):
    body = {"mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                    "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}}
    if tenant:
        response = api.admin("PATCH", f"v2/projects/{PROJECT}/tenants/{tenant}",
                             {"mfaConfig": body["mfa"]}, params={"updateMask": "mfaConfig"})
    else:
        # The guide's REST call: PATCH …/admin/v2/projects/{p}/config?updateMask=mfa
        response = api.admin("PATCH", f"admin/v2/projects/{PROJECT}/config", body, params={"updateMask": "mfa"})
    assert response.status_code == 200, response.text
    return response.json()


def verified_email_user(api, email, tenant=None):
    body = {"email": email, "password": "secret123", "returnSecureToken": True}
    if tenant:
        body["tenantId"] = tenant
    signed_up = api.v1("accounts:signUp", body).json()
    send = {"requestType": "VERIFY_EMAIL", "idToken": signed_up["idToken"]}
    if tenant:
        send["tenantId"] = tenant
    assert api.v1("accounts:sendOobCode", send).status_code == 200
    path = f"/tenants/{tenant}" if tenant else ""
    codes = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}{path}/oobCodes").json()["oobCodes"]
    code = [c for c in codes if c["email"] == email][-1]["oobCode"]
    apply = {"oobCode": code}
    if tenant:
        apply["tenantId"] = tenant
    assert api.v1("accounts:update", apply).json()["emailVerified"] is True
    signed_in = {"email": email, "password": "secret123", "returnSecureToken": True}
    if tenant:
        signed_in["tenantId"] = tenant
    return api.v1("accounts:signInWithPassword", signed_in).json()


def enroll_totp(api, user, tenant=None):
    start = {"idToken": user["idToken"], "totpEnrollmentInfo": {}}
    if tenant:
        start["tenantId"] = tenant
    started = v2(api, "mfaEnrollment:start", start)
    assert started.status_code == 200, started.text
    info = started.json()["totpSessionInfo"]
    assert info["verificationCodeLength"] == 6 and info["periodSec"] == 30 and info["hashingAlgorithm"] == "SHA1"
    finalize = {"idToken": user["idToken"], "displayName": "Authenticator",
                "totpVerificationInfo": {"sessionInfo": info["sessionInfo"],
                                         "verificationCode": totp(info["sharedSecretKey"])}}
    if tenant:
        finalize["tenantId"] = tenant
    finalized = v2(api, "mfaEnrollment:finalize", finalize)
    assert finalized.status_code == 200, finalized.text
    return info["sharedSecretKey"], finalized.json()


def test_totp_guide_flow(api):
    config = enable_totp(api)
    assert config["mfa"]["providerConfigs"][0]["state"] == "ENABLED"
    user = verified_email_user(api, "totp@example.com")
    secret, finalized = enroll_totp(api, user)
    assert claims(finalized["idToken"])["firebase"]["sign_in_second_factor"] == "totp"
    lookup = api.v1("accounts:lookup", {"idToken": finalized["idToken"]}).json()["users"][0]
    assert lookup["mfaInfo"][0]["totpInfo"] == {}
    assert "totpSecret" not in lookup["mfaInfo"][0]

    first = api.v1("accounts:signInWithPassword", {"email": "totp@example.com", "password": "secret123",
                                                   "returnSecureToken": True, "clientType": "CLIENT_TYPE_WEB"}).json()
    assert "idToken" not in first
    hint = first["mfaInfo"][0]
    assert hint["totpInfo"] == {}
    wrong = v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                           "mfaEnrollmentId": hint["mfaEnrollmentId"],
                                           "totpVerificationInfo": {"verificationCode": "1000000"}})
    assert error_message(wrong) == "INVALID_CODE"
    # The enrollment used the current step; the next step's code is inside the window and not a replay.
    done = v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                          "mfaEnrollmentId": hint["mfaEnrollmentId"],
                                          "totpVerificationInfo": {"verificationCode": totp(secret, time.time() + 30)}})
    assert done.status_code == 200, done.text
    token = claims(done.json()["idToken"])
    assert token["firebase"]["sign_in_second_factor"] == "totp"
    assert token["firebase"]["second_factor_identifier"] == hint["mfaEnrollmentId"]
    assert token["firebase"]["sign_in_provider"] == "password"
    helper = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/totpCodes",
                          params={"localId": user["localId"]}).json()
    assert helper["code"] == totp(secret)


def test_sms_guide_flow_with_ios_bodies(api):
    user = verified_email_user(api, "sms@example.com")
    started = v2(api, "mfaEnrollment:start", {"idToken": user["idToken"],
                                               "phoneEnrollmentInfo": {"phoneNumber": "+15555550120"}})
    assert started.status_code == 200, started.text
    code = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/smsMessages",
                        params={"phoneNumber": "+15555550120", "purpose": "MFA_ENROLLMENT", "wait": 5}
                        ).json()["smsMessages"][-1]["code"]
    finalized = v2(api, "mfaEnrollment:finalize", {"idToken": user["idToken"], "phoneVerificationInfo": {
        "sessionInfo": started.json()["phoneSessionInfo"]["sessionInfo"], "code": code}})
    assert finalized.status_code == 200, finalized.text

    # iOS: v3 verifyPassword, then mfaSignIn:start with the masked hint as phoneNumber.
    first = api.v3("verifyPassword", {"email": "sms@example.com", "password": "secret123",
                                      "returnSecureToken": True}).json()
    hint = first["mfaInfo"][0]
    assert hint["phoneInfo"] == "+*******0120"
    started = v2(api, "mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                           "mfaEnrollmentId": hint["mfaEnrollmentId"],
                                           "phoneSignInInfo": {"phoneNumber": hint["phoneInfo"]}})
    assert started.status_code == 200, started.text
    message = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/smsMessages",
                           params={"purpose": "MFA_SIGN_IN", "phoneNumber": "+15555550120"}).json()["smsMessages"][-1]
    done = v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                          "phoneVerificationInfo": {
                                              "sessionInfo": started.json()["phoneResponseInfo"]["sessionInfo"],
                                              "code": message["code"]}})
    assert done.status_code == 200, done.text
    assert claims(done.json()["idToken"])["firebase"]["sign_in_second_factor"] == "phone"


def test_both_factors_and_withdraw(api):
    enable_totp(api)
    user = verified_email_user(api, "both@example.com")
    secret, after_totp = enroll_totp(api, user)
    started = v2(api, "mfaEnrollment:start", {"idToken": after_totp["idToken"],
                                               "phoneEnrollmentInfo": {"phoneNumber": "+15555550121"}})
    code = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/smsMessages",
                        params={"phoneNumber": "+15555550121"}).json()["smsMessages"][-1]["code"]
    both = v2(api, "mfaEnrollment:finalize", {"idToken": after_totp["idToken"], "phoneVerificationInfo": {
        "sessionInfo": started.json()["phoneSessionInfo"]["sessionInfo"], "code": code}}).json()
    first = api.v1("accounts:signInWithPassword", {"email": "both@example.com", "password": "secret123"}).json()
    kinds = sorted("totpInfo" if "totpInfo" in h else "phoneInfo" for h in first["mfaInfo"])
    assert kinds == ["phoneInfo", "totpInfo"]
    totp_id = [h for h in first["mfaInfo"] if "totpInfo" in h][0]["mfaEnrollmentId"]
    phone_id = [h for h in first["mfaInfo"] if "phoneInfo" in h][0]["mfaEnrollmentId"]
    session = v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                             "mfaEnrollmentId": totp_id,
                                             "totpVerificationInfo": {"verificationCode": totp(secret, time.time() + 30)}}
                 ).json()
    # Withdrawing the other factor keeps the session and returns fresh tokens.
    kept = v2(api, "mfaEnrollment:withdraw", {"idToken": session["idToken"], "mfaEnrollmentId": phone_id})
    assert kept.status_code == 200
    assert claims(kept.json()["idToken"])["firebase"]["second_factor_identifier"] == totp_id
    # Withdrawing the factor the session was verified with ends the session.
    ended = v2(api, "mfaEnrollment:withdraw", {"idToken": kept.json()["idToken"], "mfaEnrollmentId": totp_id})
    assert ended.status_code == 200
    assert "idToken" not in ended.json()
    assert error_message(api.v1("accounts:lookup", {"idToken": kept.json()["idToken"]})) == "TOKEN_EXPIRED"
    plain = api.v1("accounts:signInWithPassword", {"email": "both@example.com", "password": "secret123"}).json()
    assert "idToken" in plain and "mfaPendingCredential" not in plain


def test_totp_on_a_tenant(api):
    tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "MFA",
                                                                   "allowPasswordSignup": True,
                                                                   "enableEmailLinkSignin": True}).json()["tenantId"]
    user = verified_email_user(api, "tenant-mfa@example.com", tenant=tenant)
    disabled = v2(api, "mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {},
                                                "tenantId": tenant})
    assert error_message(disabled) == "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled."
    tenant_config = enable_totp(api, tenant)
    assert tenant_config["mfaConfig"]["state"] == "ENABLED"
    secret, finalized = enroll_totp(api, user, tenant)
    assert claims(finalized["idToken"])["firebase"]["tenant"] == tenant
    first = api.v1("accounts:signInWithPassword", {"email": "tenant-mfa@example.com", "password": "secret123",
                                                   "tenantId": tenant}).json()
    # With TOTP on at the project level too, the tenant's pending credential is refused there for
    # its project, not for TOTP being off (this relied on an earlier test's project setting).
    enable_totp(api)
    elsewhere = v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                               "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
                                               "totpVerificationInfo": {"verificationCode": totp(secret)}})
    assert error_message(elsewhere) == "INVALID_PROJECT_ID : Project ID does not match MFA pending credential."
    done = v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                          "mfaEnrollmentId": first["mfaInfo"][0]["mfaEnrollmentId"],
                                          "totpVerificationInfo": {"verificationCode": totp(secret, time.time() + 30)},
                                          "tenantId": tenant})
    assert done.status_code == 200, done.text


def test_admin_multi_factor_fields_as_the_node_sdk_sends_them(api):
    # Node createUser({multiFactor: {enrolledFactors: [...]}}) -> signUp with mfaInfo.
    created = api.v1(f"projects/{PROJECT}/accounts", {
        "localId": "mf-admin", "email": "mf@example.com", "emailVerified": True,
        "mfaInfo": [{"phoneInfo": "+15555550130", "displayName": "Work"}]}, admin=True)
    assert created.status_code == 200, created.text
    # Node updateUser({multiFactor: {enrolledFactors: [...]}}) -> accounts:update with mfa.enrollments.
    updated = api.v1(f"projects/{PROJECT}/accounts:update", {
        "localId": "mf-admin",
        "mfa": {"enrollments": [{"mfaEnrollmentId": "f1", "phoneInfo": "+15555550130", "displayName": "Work",
                                 "enrolledAt": "2024-01-01T00:00:00.000Z"},
                                {"mfaEnrollmentId": "f2", "totpInfo": {}, "displayName": "App"}]}}, admin=True)
    assert updated.status_code == 200, updated.text
    looked_up = api.v1(f"projects/{PROJECT}/accounts:lookup", {"localId": ["mf-admin"]}, admin=True).json()
    factors = {f["mfaEnrollmentId"]: f for f in looked_up["users"][0]["mfaInfo"]}
    assert factors["f1"]["phoneInfo"] == "+15555550130"
    assert factors["f1"]["enrolledAt"] == "2024-01-01T00:00:00.000Z"
    assert factors["f2"]["totpInfo"] == {}
    assert "totpSecret" not in factors["f2"]
    duplicate = api.v1(f"projects/{PROJECT}/accounts:update", {
        "localId": "mf-admin", "mfa": {"enrollments": [{"mfaEnrollmentId": "x", "phoneInfo": "+15555550131"},
                                                        {"mfaEnrollmentId": "x", "phoneInfo": "+15555550132"}]}},
        admin=True)
    assert error_message(duplicate) == "DUPLICATE_MFA_ENROLLMENT_ID"
    # updateUser(uid, {multiFactor: {enrolledFactors: [{phoneNumber, factorId: 'phone'}]}}) without a
    # uid: production gives the factor a new enrollment id (firebase-tools answers INVALID_MFA_ENROLLMENT_ID).
    fresh = api.v1(f"projects/{PROJECT}/accounts:update", {
        "localId": "mf-admin", "mfa": {"enrollments": [
            {"mfaEnrollmentId": "f1", "phoneInfo": "+15555550130", "displayName": "Work"},
            {"mfaEnrollmentId": "f2", "totpInfo": {}, "displayName": "App"},
            {"phoneInfo": "+15555550134", "displayName": "Home"}]}}, admin=True)
    assert fresh.status_code == 200, fresh.text
    factors = api.v1(f"projects/{PROJECT}/accounts:lookup", {"localId": ["mf-admin"]},
                     admin=True).json()["users"][0]["mfaInfo"]
    assert [f["mfaEnrollmentId"] for f in factors][:2] == ["f1", "f2"]
    assert factors[2]["phoneInfo"] == "+15555550134" and len(factors[2]["mfaEnrollmentId"]) == 28
    # The emulator holds the secret of an admin-created TOTP factor, so a test can sign in with it.
    enable_totp(api)
    ok(api.v1(f"projects/{PROJECT}/accounts:update", {"localId": "mf-admin", "password": "secret123"}, admin=True))
    first = api.v1("accounts:signInWithPassword", {"email": "mf@example.com", "password": "secret123"}).json()
    code = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/totpCodes",
                        params={"localId": "mf-admin", "mfaEnrollmentId": "f2"}).json()["code"]
    done = v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                          "mfaEnrollmentId": "f2", "totpVerificationInfo": {"verificationCode": code}})
    assert done.status_code == 200, done.text
    # Import (batchCreate) with TOTP (its secret as firebase-tools exports it) and phone factors; a
    # TOTP factor without its secret is refused, as firebase-tools does.
    imported = api.v1(f"projects/{PROJECT}/accounts:batchCreate", {"users": [{
        "localId": "mf-import", "email": "imp-mf@example.com", "emailVerified": True,
        "mfaInfo": [{"mfaEnrollmentId": "i1", "totpInfo": {}, "emulatorTotpSecret": "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"},
                    {"mfaEnrollmentId": "i2", "phoneInfo": "+15555550133"}]}, {
        "localId": "mf-secretless", "email": "imp-none@example.com", "emailVerified": True,
        "mfaInfo": [{"mfaEnrollmentId": "i3", "totpInfo": {}}]}]}, admin=True)
    assert imported.json().get("error") == [{"index": 1, "message": "Second factor not supported."}], imported.text
    users = api.v1(f"projects/{PROJECT}/accounts:lookup", {"localId": ["mf-import"]}, admin=True).json()["users"]
    assert [f["mfaEnrollmentId"] for f in users[0]["mfaInfo"]] == ["i1", "i2"]
    exported = api.admin("GET", f"v1/projects/{PROJECT}/accounts:batchGet", params={"maxResults": -1}).json()["users"]
    factor = [u for u in exported if u["localId"] == "mf-import"][0]["mfaInfo"][0]
    assert factor["emulatorTotpSecret"] == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
