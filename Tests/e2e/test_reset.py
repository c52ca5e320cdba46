"""DELETE /emulator/v1/projects/{p}/config: the settings back to the defaults, tenants removed, accounts kept."""
import requests

from conftest import PROJECT


def test_settings_reset_keeps_accounts(api):
    patched = api.admin("PATCH", f"v2/projects/{PROJECT}/config",
                        {"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550170": "123456"}}}},
                        params={"updateMask": "signIn.phoneNumber.testPhoneNumbers"})
    assert patched.status_code == 200, patched.text
    tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "gone"}).json()["tenantId"]
    deleted = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "deleted"}).json()["tenantId"]
    assert api.admin("DELETE", f"v2/projects/{PROJECT}/tenants/{deleted}").status_code == 200
    assert api.admin("GET", f"v2/projects/{PROJECT}/tenants/{deleted}").json()["error"]["message"] == "TENANT_NOT_FOUND"
    assert api.v1("accounts:signUp", {"email": "kept@example.com", "password": "secret123"}).status_code == 200

    reset = requests.delete(f"{api.base}/emulator/v1/projects/{PROJECT}/config")
    assert (reset.status_code, reset.json()) == (200, {})

    config = api.admin("GET", f"v2/projects/{PROJECT}/config").json()
    assert "testPhoneNumbers" not in config["signIn"].get("phoneNumber", {})
    listed = api.admin("GET", f"v2/projects/{PROJECT}/tenants").json()
    assert tenant not in [t["tenantId"] for t in listed.get("tenants", [])]
    # A tenant deleted before the reset is forgotten: made again on first use, as any unknown id.
    again = api.admin("GET", f"v2/projects/{PROJECT}/tenants/{deleted}")
    assert (again.status_code, again.json()["tenantId"]) == (200, deleted)
    kept = api.v1("accounts:signInWithPassword", {"email": "kept@example.com", "password": "secret123"})
    assert kept.status_code == 200, kept.text
