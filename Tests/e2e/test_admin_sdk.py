"""The firebase-admin Python SDK (from PyPI) against the real binary."""
import base64
import json

import pytest
import requests
from firebase_admin import tenant_mgt

from conftest import PROJECT, error_message


def test_user_lifecycle(admin_auth):
    auth, app = admin_auth
    user = auth.create_user(uid="alice", email="Alice@Example.com", password="secret123",
                            display_name="Alice", phone_number="+15555550100", app=app)
    assert user.uid == "alice"
    assert user.email == "alice@example.com"
    assert user.phone_number == "+15555550100"
    assert user.email_verified is False
    assert {p.provider_id for p in user.provider_data} == {"password", "phone"}

    assert auth.get_user_by_email("alice@example.com", app=app).uid == "alice"
    assert auth.get_user_by_phone_number("+15555550100", app=app).uid == "alice"

    updated = auth.update_user("alice", display_name="Alice A", email_verified=True, disabled=True, app=app)
    assert updated.display_name == "Alice A"
    assert updated.email_verified is True
    assert updated.disabled is True

    cleared = auth.update_user("alice", display_name=auth.DELETE_ATTRIBUTE, phone_number=auth.DELETE_ATTRIBUTE, app=app)
    assert cleared.display_name is None
    assert cleared.phone_number is None

    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email="alice@example.com", app=app)
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid="alice", app=app)

    auth.delete_user("alice", app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user("alice", app=app)


def test_list_and_batch(admin_auth):
    auth, app = admin_auth
    for index in range(5):
        auth.create_user(uid=f"user{index}", email=f"user{index}@example.com", app=app)
    page = auth.list_users(max_results=2, app=app)
    assert [u.uid for u in page.users] == ["user0", "user1"]
    assert sorted(u.uid for u in page.iterate_all()) == [f"user{i}" for i in range(5)]

    result = auth.get_users([auth.UidIdentifier("user1"), auth.EmailIdentifier("user2@example.com"),
                             auth.UidIdentifier("missing")], app=app)
    assert sorted(u.uid for u in result.users) == ["user1", "user2"]
    assert [i.uid for i in result.not_found] == ["missing"]

    deleted = auth.delete_users(["user0", "user1", "nobody"], app=app)
    assert deleted.success_count == 3
    assert deleted.failure_count == 0
    assert sorted(u.uid for u in auth.list_users(app=app).iterate_all()) == ["user2", "user3", "user4"]


def test_import_users_and_claims(admin_auth):
    auth, app = admin_auth
    records = [
        auth.ImportUserRecord(uid="imp1", email="imp1@example.com", email_verified=True,
                              custom_claims={"plan": "pro"}),
        auth.ImportUserRecord(uid="imp2", display_name="Imported Two"),
    ]
    result = auth.import_users(records, app=app)
    assert result.success_count == 2
    assert result.failure_count == 0
    assert auth.get_user("imp1", app=app).custom_claims == {"plan": "pro"}

    again = auth.import_users([auth.ImportUserRecord(uid="imp1")], app=app)
    assert again.failure_count == 1
    assert again.errors[0].index == 0

    auth.set_custom_user_claims("imp2", {"admin": True, "level": 3}, app=app)
    assert auth.get_user("imp2", app=app).custom_claims == {"admin": True, "level": 3}
    with pytest.raises(ValueError):
        auth.set_custom_user_claims("imp2", {"sub": "x"}, app=app)


def test_custom_token_sign_in_and_verify(admin_auth, api):
    auth, app = admin_auth
    token = auth.create_custom_token("ct-user", {"premium": True}, app=app).decode()
    signed_in = api.v1("accounts:signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert signed_in.status_code == 200, signed_in.text
    body = signed_in.json()
    assert body["isNewUser"] is True
    claims = auth.verify_id_token(body["idToken"], app=app)
    assert claims["uid"] == "ct-user"
    assert claims["premium"] is True
    assert claims["firebase"]["sign_in_provider"] == "custom"

    cookie = auth.create_session_cookie(body["idToken"], expires_in=3600, app=app)
    decoded = auth.verify_session_cookie(cookie, app=app)
    assert decoded["uid"] == "ct-user"
    assert decoded["exp"] - decoded["iat"] == 3600


def test_revocation(admin_auth, api):
    auth, app = admin_auth
    auth.create_user(uid="rev", email="rev@example.com", password="secret123", app=app)
    signed_in = api.v1("accounts:signInWithPassword", {"email": "rev@example.com", "password": "secret123"}).json()
    issued_at = auth.verify_id_token(signed_in["idToken"], app=app)["iat"]

    auth.revoke_refresh_tokens("rev", app=app)
    assert auth.get_user("rev", app=app).tokens_valid_after_timestamp >= issued_at * 1000

    # Revoke from the second after the token was issued (no sleeping: set validSince directly).
    update = api.v1(f"projects/{PROJECT}/accounts:update", {"localId": "rev", "validSince": str(issued_at + 1)},
                    admin=True)
    assert update.status_code == 200, update.text
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(signed_in["idToken"], check_revoked=True, app=app)
    refreshed = requests.post(f"{api.base}/securetoken.googleapis.com/v1/token", params={"key": "k"},
                              data={"grant_type": "refresh_token", "refresh_token": signed_in["refreshToken"]})
    assert refreshed.status_code == 400
    assert error_message(refreshed) == "TOKEN_EXPIRED"


def test_email_verification_link(admin_auth, api):
    auth, app = admin_auth
    auth.create_user(uid="ver", email="ver@example.com", app=app)
    link = auth.generate_email_verification_link("ver@example.com", app=app)
    assert "/emulator/action?mode=verifyEmail" in link
    codes = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/oobCodes").json()["oobCodes"]
    assert [c["email"] for c in codes if c["requestType"] == "VERIFY_EMAIL"] == ["ver@example.com"]
    page = requests.get(link.replace("http://127.0.0.1:9099", api.base))
    assert page.status_code == 200
    assert page.json()["authEmulator"]["success"] == "The email has been successfully verified."
    assert auth.get_user("ver", app=app).email_verified is True

    reset = auth.generate_password_reset_link("ver@example.com", app=app)
    assert "mode=resetPassword" in reset
    with pytest.raises(auth.UserNotFoundError):
        auth.generate_email_verification_link("nobody@example.com", app=app)


def test_provider_configs(admin_auth):
    auth, app = admin_auth
    oidc = auth.create_oidc_provider_config("oidc.corp", client_id="client-1", issuer="https://issuer.example.com",
                                            display_name="Corp", enabled=True, app=app)
    assert oidc.provider_id == "oidc.corp"
    assert oidc.client_id == "client-1"
    assert auth.get_oidc_provider_config("oidc.corp", app=app).issuer == "https://issuer.example.com"
    changed = auth.update_oidc_provider_config("oidc.corp", display_name="Corp SSO", app=app)
    assert changed.display_name == "Corp SSO"
    assert changed.client_id == "client-1"
    assert [c.provider_id for c in auth.list_oidc_provider_configs(app=app).iterate_all()] == ["oidc.corp"]

    saml = auth.create_saml_provider_config(
        "saml.corp", idp_entity_id="idp-entity", sso_url="https://idp.example.com/sso",
        x509_certificates=["-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"],
        rp_entity_id="rp-entity", callback_url="https://project.firebaseapp.com/__/auth/handler", app=app)
    assert saml.sso_url == "https://idp.example.com/sso"
    assert auth.get_saml_provider_config("saml.corp", app=app).rp_entity_id == "rp-entity"

    auth.delete_oidc_provider_config("oidc.corp", app=app)
    auth.delete_saml_provider_config("saml.corp", app=app)
    with pytest.raises(auth.ConfigurationNotFoundError):
        auth.get_oidc_provider_config("oidc.corp", app=app)


def test_tenant_scoped_users(admin_auth, api):
    auth, app = admin_auth
    tenant_auth = tenant_mgt.auth_for_tenant("tenant-a", app=app)
    user = tenant_auth.create_user(uid="t-user", email="t@example.com", password="secret123")
    assert user.tenant_id == "tenant-a"
    assert tenant_auth.get_user("t-user").email == "t@example.com"
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user("t-user", app=app)

    signed_in = api.v1("accounts:signInWithPassword",
                       {"email": "t@example.com", "password": "secret123", "tenantId": "tenant-a"})
    assert signed_in.status_code == 200, signed_in.text
    claims = tenant_auth.verify_id_token(signed_in.json()["idToken"])
    assert claims["firebase"]["tenant"] == "tenant-a"

    tenant_auth.delete_user("t-user")
    assert list(tenant_auth.list_users().iterate_all()) == []


def test_enforced_password_policy_refuses_admin_created_passwords(admin_auth, daemon):
    """Production answers createUser with a policy-breaking password with
    PASSWORD_DOES_NOT_MEET_REQUIREMENTS (the Admin SDKs have no code for it: a 400 InvalidArgumentError)."""
    from firebase_admin import exceptions
    auth, app = admin_auth
    # tenant_mgt's own calls go to production; the tenant is made over REST.
    created = requests.post(
        f"{daemon.base}/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/tenants",
        headers={"Authorization": "Bearer owner"},
        json={"displayName": "policy", "allowPasswordSignup": True, "passwordPolicyConfig": {
            "passwordPolicyEnforcementState": "ENFORCE", "passwordPolicyVersions": [
                {"customStrengthOptions": {"minPasswordLength": 10, "containsNumericCharacter": True}}]}})
    assert created.status_code == 200, created.text
    client = tenant_mgt.auth_for_tenant(created.json()["name"].split("/")[-1], app=app)
    with pytest.raises(exceptions.InvalidArgumentError) as refused:
        client.create_user(email="p@example.com", password="shortpw")
    assert "PASSWORD_DOES_NOT_MEET_REQUIREMENTS" in str(refused.value)
    assert ("Missing password requirements: [Password must contain at least 10 characters, "
            "Password must contain a numeric character]") in str(refused.value)
    user = client.create_user(email="p@example.com", password="long-enough-1")
    assert client.get_user(user.uid).email == "p@example.com"
    # The default project has no policy: the same password is fine there.
    assert auth.create_user(email="p@example.com", password="shortpw", app=app).tenant_id is None


def test_admin_edits_keep_sessions_and_revocation_ends_them(api, admin_auth):
    """Production's session rules through the Python Admin SDK; auth_time kept across a refresh.
    The SDK revokes with validSince from this machine's clock, so the daemon's is moved around it."""
    auth, app = admin_auth
    clock = f"{api.base}/emulator/v1/clock"

    def claims(token):
        payload = token.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))

    def sign_in():
        return api.v1("accounts:signInWithPassword", {"email": "keep@example.com", "password": "secret123",
                                                      "returnSecureToken": True}).json()

    user = api.v1("accounts:signUp", {"email": "keep@example.com", "password": "secret123",
                                      "returnSecureToken": True}).json()
    uid = user["localId"]
    auth.update_user(uid, display_name="Kept", photo_url="http://localhost/k.png", disabled=False, app=app)
    auth.set_custom_user_claims(uid, {"role": "admin"}, app=app)
    assert api.v1("accounts:lookup", {"idToken": user["idToken"]}).status_code == 200
    try:
        requests.post(f"{clock}:advance", json={"seconds": 60}).raise_for_status()
        refreshed = requests.post(f"{api.base}/securetoken.googleapis.com/v1/token", params={"key": "k"},
                                  data={"grant_type": "refresh_token", "refresh_token": user["refreshToken"]}).json()
        assert claims(refreshed["id_token"])["auth_time"] == claims(user["idToken"])["auth_time"]
        assert claims(refreshed["id_token"])["iat"] >= claims(user["idToken"])["iat"] + 60
        assert claims(refreshed["id_token"])["role"] == "admin"
        # A session from 5 s ago ends when the SDK revokes (validSince = now on this machine).
        requests.post(f"{clock}:reset").raise_for_status()
        requests.post(f"{clock}:advance", json={"seconds": -5}).raise_for_status()
        earlier = sign_in()
        auth.revoke_refresh_tokens(uid, app=app)
        assert error_message(api.v1("accounts:lookup", {"idToken": earlier["idToken"]})) == "TOKEN_EXPIRED"
        # A password change ends the sessions before it (validSince = the daemon's now).
        requests.post(f"{clock}:reset").raise_for_status()
        current = sign_in()
        requests.post(f"{clock}:advance", json={"seconds": 2}).raise_for_status()
        auth.update_user(uid, password="changed123", app=app)
        assert error_message(api.v1("accounts:lookup", {"idToken": current["idToken"]})) == "TOKEN_EXPIRED"
    finally:
        requests.post(f"{clock}:reset").raise_for_status()
