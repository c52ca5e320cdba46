"""Plain-HTTP flows with the bodies the JS and iOS SDKs send (reference/client-protocol.md §0, §14)."""
import json

import requests

from conftest import PROJECT, error_message, ok


def test_js_email_flow(api):
    # JS v12: signUp carries clientType; refresh is form-encoded; lookup follows every sign-in.
    up = api.v1("accounts:signUp", {"email": "js@example.com", "password": "secret123",
                                    "returnSecureToken": True, "clientType": "CLIENT_TYPE_WEB"})
    assert up.status_code == 200, up.text
    signed_in = api.v1("accounts:signInWithPassword", {"email": "js@example.com", "password": "secret123",
                                                        "returnSecureToken": True, "clientType": "CLIENT_TYPE_WEB"})
    body = signed_in.json()
    assert body["registered"] is True
    assert "mfaPendingCredential" not in body
    lookup = api.v1("accounts:lookup", {"idToken": body["idToken"]})
    assert lookup.json()["users"][0]["localId"] == up.json()["localId"]
    refreshed = requests.post(f"{api.base}/securetoken.googleapis.com/v1/token?key=k",
                              data=f"grant_type=refresh_token&refresh_token={body['refreshToken']}",
                              headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert refreshed.status_code == 200
    assert refreshed.json()["user_id"] == up.json()["localId"]
    assert refreshed.json()["access_token"]


def test_ios_legacy_paths(api):
    # iOS uses the v3 relyingparty names and JSON refresh bodies.
    up = api.v3("signupNewUser", {"email": "ios@example.com", "password": "secret123", "returnSecureToken": True})
    assert up.status_code == 200, up.text
    verify = api.v3("verifyPassword", {"email": "ios@example.com", "password": "secret123",
                                       "returnSecureToken": True})
    assert verify.json()["kind"] == "identitytoolkit#VerifyPasswordResponse"
    info = api.v3("getAccountInfo", {"idToken": verify.json()["idToken"]})
    assert info.json()["users"][0]["email"] == "ios@example.com"
    updated = api.v3("setAccountInfo", {"idToken": verify.json()["idToken"], "displayName": "iPhone",
                                        "returnSecureToken": True})
    assert updated.json()["displayName"] == "iPhone"
    refreshed = requests.post(f"{api.base}/securetoken.googleapis.com/v1/token?key=k",
                              json={"grantType": "refresh_token", "refreshToken": verify.json()["refreshToken"]})
    assert refreshed.status_code == 200
    assert refreshed.json()["access_token"]
    deleted = api.v3("deleteAccount", {"idToken": verify.json()["idToken"]})
    assert deleted.status_code == 200
    assert error_message(api.v3("getAccountInfo", {"idToken": verify.json()["idToken"]})) == "USER_NOT_FOUND"


def test_email_link_sign_in(api):
    sent = api.v1("accounts:sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": "link@example.com",
                                           "continueUrl": "https://app.example.com/finish", "canHandleCodeInApp": True})
    assert sent.status_code == 200, sent.text
    codes = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/oobCodes").json()["oobCodes"]
    code = [c for c in codes if c["email"] == "link@example.com"][-1]
    assert code["requestType"] == "EMAIL_SIGNIN"
    assert "mode=signIn" in code["oobLink"]
    wrong = api.v1("accounts:signInWithEmailLink", {"email": "other@example.com", "oobCode": code["oobCode"]})
    assert error_message(wrong) == "INVALID_EMAIL : The email provided does not match the sign-in email address."
    signed_in = api.v1("accounts:signInWithEmailLink", {"email": "link@example.com", "oobCode": code["oobCode"]})
    assert signed_in.status_code == 200
    assert signed_in.json()["isNewUser"] is True
    reused = api.v1("accounts:signInWithEmailLink", {"email": "link@example.com", "oobCode": code["oobCode"]})
    assert error_message(reused) == "INVALID_OOB_CODE"


def test_verify_before_update_email_code_listed_under_the_new_address(api):
    # The JS SDK's verifyBeforeUpdateEmail, then applyActionCode and reload; its own suite reads the
    # code from oobCodes under the new address, where production sends the mail.
    up = ok(api.v1("accounts:signUp", {"email": "before@example.com", "password": "secret123",
                                        "returnSecureToken": True})).json()
    sent = api.v1("accounts:sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": up["idToken"],
                                           "newEmail": "after@example.com",
                                           "continueUrl": "https://app.example.com/done"})
    assert sent.status_code == 200, sent.text
    assert sent.json() == {"kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "before@example.com"}
    codes = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/oobCodes").json()["oobCodes"]
    listed = [c for c in codes if c["email"] == "after@example.com"]
    assert len(listed) == 1 and not [c for c in codes if c["email"] == "before@example.com"]
    assert set(listed[0]) == {"email", "newEmail", "requestType", "oobCode", "oobLink"}
    assert listed[0]["newEmail"] == "after@example.com"
    assert listed[0]["requestType"] == "VERIFY_AND_CHANGE_EMAIL"
    assert "mode=verifyAndChangeEmail" in listed[0]["oobLink"]
    applied = api.v1("accounts:update", {"oobCode": listed[0]["oobCode"]})
    assert applied.status_code == 200, applied.text
    assert applied.json()["email"] == "after@example.com"
    # The JS suite's user.reload(): the session goes on, and the account has the new address.
    reloaded = api.v1("accounts:lookup", {"idToken": up["idToken"]})
    assert reloaded.status_code == 200, reloaded.text
    assert reloaded.json()["users"][0]["email"] == "after@example.com"
    assert reloaded.json()["users"][0]["emailVerified"] is True


def test_password_reset_flow(api):
    ok(api.v1("accounts:signUp", {"email": "reset@example.com", "password": "secret123"}))
    # Android sends the enum as its proto number (PASSWORD_RESET = 1).
    sent = api.v1("accounts:sendOobCode", {"requestType": 1, "email": "reset@example.com"})
    assert sent.status_code == 200, sent.text
    codes = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/oobCodes").json()["oobCodes"]
    code = [c for c in codes if c["requestType"] == "PASSWORD_RESET"][-1]["oobCode"]
    inspected = api.v1("accounts:resetPassword", {"oobCode": code})
    assert inspected.json()["requestType"] == "PASSWORD_RESET"
    assert inspected.json()["email"] == "reset@example.com"
    reset = api.v1("accounts:resetPassword", {"oobCode": code, "newPassword": "brandnew1"})
    assert reset.status_code == 200
    assert api.v1("accounts:signInWithPassword",
                  {"email": "reset@example.com", "password": "brandnew1"}).status_code == 200
    assert error_message(api.v1("accounts:signInWithPassword",
                                {"email": "reset@example.com", "password": "secret123"})) == "INVALID_PASSWORD"


def test_fake_idp_sign_in(api):
    post_body = "providerId=google.com&id_token=" + requests.utils.quote(
        '{"sub":"g-123","email":"g@example.com","email_verified":true,"name":"G User"}')
    signed_in = api.v1("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": post_body,
                                                   "returnSecureToken": True, "returnIdpCredential": True})
    assert signed_in.status_code == 200, signed_in.text
    body = signed_in.json()
    assert body["isNewUser"] is True
    assert body["federatedId"] == "https://accounts.google.com/g-123"
    assert json.loads(body["rawUserInfo"])["id"] == "g-123"
    assert body["email"] == "g@example.com"
    again = api.v1("accounts:signInWithIdp", {"requestUri": "http://localhost", "postBody": post_body})
    assert again.json()["localId"] == body["localId"]
    assert "isNewUser" not in again.json()  # as firebase-tools: only a new account says so
    uri = api.v1("accounts:createAuthUri", {"identifier": "g@example.com", "continueUri": "http://localhost"})
    assert uri.json()["registered"] is True
    assert uri.json()["signinMethods"] == ["google.com"]


def test_access_token_only_sign_in_as_android_and_flutter_send_it(api, admin_auth):
    """signInWithCredential(FacebookAuthProvider.getCredential(token)) and GitHub's: no id_token."""
    auth, app = admin_auth
    for provider in ("facebook.com", "github.com", "google.com"):
        body = {"requestUri": "http://localhost", "postBody": f"access_token=EAAB-{provider}&providerId={provider}",
                "returnSecureToken": True, "returnIdpCredential": True}
        first = api.v1("accounts:signInWithIdp", body)
        assert first.status_code == 200, first.text
        assert first.json()["isNewUser"] is True
        assert first.json()["oauthAccessToken"] == f"EAAB-{provider}"
        again = api.v1("accounts:signInWithIdp", body).json()
        assert again["localId"] == first.json()["localId"]
        user = auth.get_user(first.json()["localId"], app=app)
        assert [(p.provider_id, p.email) for p in user.provider_data] == [(provider, None)]


def test_config_and_tenants_with_node_admin_bodies(api):
    # Node Admin updateProjectConfig sends leaf masks.
    patched = api.admin("PATCH", f"v2/projects/{PROJECT}/config",
                        {"mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"],
                                 "providerConfigs": [{"state": "ENABLED",
                                                      "totpProviderConfig": {"adjacentIntervals": 3}}]}},
                        params={"updateMask": "mfa.state,mfa.enabledProviders,mfa.providerConfigs"})
    assert patched.status_code == 200, patched.text
    assert patched.json()["mfa"]["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 3
    assert patched.json()["name"] == f"projects/{PROJECT}/config"
    bad = api.admin("PATCH", f"admin/v2/projects/{PROJECT}/config",
                    {"mfa": {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED",
                                                                      "totpProviderConfig": {"adjacentIntervals": 11}}]}},
                    params={"updateMask": "mfa"})
    assert bad.status_code == 400
    assert error_message(bad).startswith("INVALID_CONFIG : mfa.providerConfigs[0].totpProviderConfig.adjacentIntervals")

    created = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "Tenant One",
                                                                    "allowPasswordSignup": True})
    assert created.status_code == 200, created.text
    tenant = created.json()
    assert tenant["name"] == f"projects/{PROJECT}/tenants/{tenant['tenantId']}"
    assert tenant["mfaConfig"]["state"] == "DISABLED"
    updated = api.admin("PATCH", f"v2/projects/{PROJECT}/tenants/{tenant['tenantId']}",
                        {"mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
                         "testPhoneNumbers": {"+15555550123": "123456"}},
                        params={"updateMask": "mfaConfig,testPhoneNumbers"})
    assert updated.json()["testPhoneNumbers"] == {"+15555550123": "123456"}
    assert updated.json()["displayName"] == "Tenant One"
    listed = api.admin("GET", f"v2/projects/{PROJECT}/tenants")
    assert tenant["tenantId"] in [t["tenantId"] for t in listed.json()["tenants"]]
    assert api.admin("DELETE", f"v2/projects/{PROJECT}/tenants/{tenant['tenantId']}").status_code == 200


def test_deleted_tenant_is_not_found_until_created_again(api):
    # firebase-admin-node's deleteTenant() then getTenant(): production answers TENANT_NOT_FOUND.
    created = ok(api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "gone"})).json()
    tenant = created["tenantId"]
    ok(api.v1(f"projects/{PROJECT}/tenants/{tenant}/accounts", {"email": "t@example.com", "password": "secret123"},
              admin=True))
    deleted = api.admin("DELETE", f"v2/projects/{PROJECT}/tenants/{tenant}")
    assert (deleted.status_code, deleted.json()) == (200, {})
    for answer in (
        api.admin("GET", f"v2/projects/{PROJECT}/tenants/{tenant}"),
        api.admin("PATCH", f"v2/projects/{PROJECT}/tenants/{tenant}", {"displayName": "back"},
                  params={"updateMask": "displayName"}),
        api.admin("DELETE", f"v2/projects/{PROJECT}/tenants/{tenant}"),
        api.v1("accounts:signUp", {"email": "u@example.com", "password": "secret123", "tenantId": tenant}),
        api.v1("accounts:signInWithPassword", {"email": "t@example.com", "password": "secret123",
                                               "tenantId": tenant}),
    ):
        assert answer.status_code == 400, answer.text
        assert error_message(answer) == "TENANT_NOT_FOUND"
    listed = api.admin("GET", f"v2/projects/{PROJECT}/tenants").json().get("tenants", [])
    assert tenant not in [t["tenantId"] for t in listed]
    # A tenant never created is still made on first use, as firebase-tools makes it.
    implicit = api.admin("GET", f"v2/projects/{PROJECT}/tenants/never-created-1")
    assert implicit.status_code == 200, implicit.text
    assert implicit.json()["tenantId"] == "never-created-1"
