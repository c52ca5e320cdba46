"""The answers an unseen client suite found different from firebase-tools and production (issue
22, part 6), against the built binary with the bodies the SDKs send."""
import requests

from conftest import PROJECT, error_message


def test_sign_up_and_sign_in_field_checks(api):
    anonymous = api.v1("accounts:signUp", {"returnSecureToken": True}).json()
    # JS linkWithCredential(EmailAuthProvider.credential(…)) without an email: refused, account unchanged.
    no_email = api.v1("accounts:signUp", {"idToken": anonymous["idToken"], "password": "secret123"})
    assert (no_email.status_code, error_message(no_email)) == (400, "MISSING_EMAIL")
    no_password = api.v1("accounts:signUp", {"email": "p@example.com", "returnSecureToken": True})
    assert error_message(no_password) == "MISSING_PASSWORD"
    both_empty = api.v1("accounts:signUp", {"email": "", "password": ""})
    assert (both_empty.status_code, error_message(both_empty)) == (400, "INVALID_EMAIL")
    both = api.v1("accounts:signUp", {"idToken": anonymous["idToken"], "localId": "x"}, admin=True)
    assert error_message(both) == "UNEXPECTED_PARAMETER : User ID"
    empty = api.v1("accounts:signInWithPassword", {"email": "", "password": "x"})
    assert error_message(empty) == "INVALID_EMAIL"
    absent = api.v1("accounts:signInWithPassword", {"password": "x"})
    assert error_message(absent) == "MISSING_EMAIL"


def test_account_updates_deletes_and_claims(api, admin_auth):
    auth, app = admin_auth
    user = api.v1("accounts:signUp", {"email": "d@example.com", "password": "secret123",
                                      "returnSecureToken": True}).json()
    requests.post(f"{api.base}/emulator/v1/clock:advance", json={"seconds": 2}).raise_for_status()
    try:
        revoked = api.v1("accounts:update", {"idToken": user["idToken"], "validSince": "0",
                                             "returnSecureToken": True})
        assert revoked.status_code == 200, revoked.text
        assert api.v1("accounts:lookup", {"idToken": revoked.json()["idToken"]}).status_code == 200
        assert error_message(api.v1("accounts:lookup", {"idToken": user["idToken"]})) == "TOKEN_EXPIRED"
    finally:
        requests.post(f"{api.base}/emulator/v1/clock:reset").raise_for_status()
    delete = api.v1(f"projects/{PROJECT}/accounts:delete", {"idToken": revoked.json()["idToken"]}, admin=True)
    assert error_message(delete) == "MISSING_LOCAL_ID"
    empty = api.v1(f"projects/{PROJECT}/accounts:batchDelete", {"localIds": []}, admin=True)
    assert error_message(empty) == "LOCAL_ID_LIST_EXCEEDS_LIMIT"
    auth.set_custom_user_claims(user["localId"], {"role": "x"}, app=app)
    auth.set_custom_user_claims(user["localId"], None, app=app)  # sends customAttributes "{}", as Node's does
    looked_up = api.v1("accounts:lookup", {"localId": [user["localId"]]}, admin=True).json()["users"][0]
    assert looked_up["customAttributes"] == "{}"  # what the Node Admin SDK reads as customClaims {}


def test_disabled_tenant_action_page_and_privacy_config(api):
    tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "off", "disableAuth": True,
                                                                  "emailPrivacyConfig": {
                                                                      "enableImprovedEmailPrivacy": False}}).json()
    assert tenant["emailPrivacyConfig"] == {}
    tid = tenant["tenantId"]
    for reply in (api.v1("accounts:signInWithCustomToken", {"tenantId": tid}),
                  api.admin("GET", f"v1/projects/{PROJECT}/tenants/{tid}/accounts:batchGet"),
                  api.admin("POST", f"v1/projects/{PROJECT}/tenants/{tid}/accounts:query", {})):
        assert (reply.status_code, error_message(reply)) == (400, "PROJECT_DISABLED")
    page = requests.get(f"{api.base}/emulator/action", params={"mode": "nonsense", "oobCode": "x"})
    assert page.json() == {"authEmulator": {"error": "missing apiKey query parameter"}}
    no_code = requests.get(f"{api.base}/emulator/action", params={"mode": "verifyEmail", "apiKey": "k"})
    assert (no_code.status_code, no_code.json()) == (400, {"authEmulator": {"error": "missing oobCode query parameter"}})
