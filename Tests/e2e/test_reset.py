"""DELETE /emulator/v1/projects/{p}/config: the settings back to the defaults, tenants removed, accounts kept."""
import requests

from conftest import PROJECT


def test_settings_reset_keeps_accounts(api):
    patched = api.admin("PATCH", f"v2/projects/{PROJECT}/config",
                        {"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550170": "123456"}}}},
                        params={"updateMask": "signIn.phoneNumber.testPhoneNumbers"})
    assert patched.status_code == 200, patched.text
    tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "gone"}).json()["tenantId"]
    assert api.v1("accounts:signUp", {"email": "kept@example.com", "password": "secret123"}).status_code == 200

    reset = requests.delete(f"{api.base}/emulator/v1/projects/{PROJECT}/config")
    assert (reset.status_code, reset.json()) == (200, {})

    config = api.admin("GET", f"v2/projects/{PROJECT}/config").json()
    assert "testPhoneNumbers" not in config["signIn"].get("phoneNumber", {})
    listed = api.admin("GET", f"v2/projects/{PROJECT}/tenants").json()
    assert tenant not in [t["tenantId"] for t in listed.get("tenants", [])]
    kept = api.v1("accounts:signInWithPassword", {"email": "kept@example.com", "password": "secret123"})
    assert kept.status_code == 200, kept.text
