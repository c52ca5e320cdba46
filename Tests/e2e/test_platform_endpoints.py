"""The last stubs answered as production: v2 defaultSupportedIdps, identityPlatform:initializeAuth (project and
tenant), legacy v3 signOutUser (issue 44)."""
import requests

from conftest import PROJECT, error_message, ok

IDPS = [("apple.com", "Apple"), ("facebook.com", "Facebook"), ("gc.apple.com", "Game Center"),
        ("github.com", "GitHub"), ("google.com", "Google"), ("linkedin.com", "LinkedIn"),
        ("microsoft.com", "Microsoft"), ("playgames.google.com", "Google Play Games"), ("twitter.com", "Twitter"),
        ("yahoo.com", "Yahoo")]


def idps(api, **params):
    answer = requests.get(f"{api.base}/identitytoolkit.googleapis.com/v2/defaultSupportedIdps",
                          params={"key": "fake-api-key", **params})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_default_supported_idps_list_and_pages(api):
    assert idps(api) == {"defaultSupportedIdps": [{"idpId": i, "description": d} for i, d in IDPS]}
    first = idps(api, pageSize=4)
    assert [p["idpId"] for p in first["defaultSupportedIdps"]] == [i for i, _ in IDPS[:4]]
    assert first["nextPageToken"] == "github.com"
    second = idps(api, pageSize=4, pageToken=first["nextPageToken"])
    assert [p["idpId"] for p in second["defaultSupportedIdps"]] == [i for i, _ in IDPS[4:8]]
    last = idps(api, pageSize=4, pageToken=second["nextPageToken"])
    assert [p["idpId"] for p in last["defaultSupportedIdps"]] == ["twitter.com", "yahoo.com"]
    assert "nextPageToken" not in last
    # Every listed id configures a provider.
    made = api.admin("POST", f"v2/projects/{PROJECT}/defaultSupportedIdpConfigs",
                     {"enabled": True, "clientId": "c", "clientSecret": "s"}, params={"idpId": "playgames.google.com"})
    assert made.status_code == 200, made.text
    without_key = requests.get(f"{api.base}/identitytoolkit.googleapis.com/v2/defaultSupportedIdps")
    assert without_key.status_code == 403


def test_initialize_auth_on_project_and_tenant(api):
    project = api.admin("POST", f"v2/projects/{PROJECT}/identityPlatform:initializeAuth", {})
    assert (project.status_code, project.json()) == (200, {})
    tenant = ok(api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "ip"})).json()["tenantId"]
    on_tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants/{tenant}/identityPlatform:initializeAuth", {})
    assert (on_tenant.status_code, on_tenant.json()) == (200, {})
    ok(api.admin("DELETE", f"v2/projects/{PROJECT}/tenants/{tenant}"))
    gone = api.admin("POST", f"v2/projects/{PROJECT}/tenants/{tenant}/identityPlatform:initializeAuth", {})
    assert (gone.status_code, error_message(gone)) == (400, "TENANT_NOT_FOUND")
    unauthenticated = requests.post(
        f"{api.base}/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/identityPlatform:initializeAuth",
        json={}, headers={"Authorization": "Bearer not-the-token"})
    assert unauthenticated.status_code == 401


def test_legacy_sign_out_user(api):
    user = ok(api.v1("accounts:signUp", {"email": "out@example.com", "password": "secret123"})).json()
    signed_out = api.v3("signOutUser", {"instanceId": "instance-1", "localId": user["localId"]})
    assert (signed_out.status_code, signed_out.json()) == (200, {"localId": user["localId"]})
    # The session goes on: nothing is revoked.
    assert api.v1("accounts:lookup", {"idToken": user["idToken"]}).status_code == 200
    assert error_message(api.v3("signOutUser", {"instanceId": "instance-1"})) == "MISSING_LOCAL_ID"
    assert error_message(api.v3("signOutUser", {"localId": "nobody"})) == "USER_NOT_FOUND"
