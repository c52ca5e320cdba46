"""authemu export / import in the firebase-tools layout, and importing a firebase-tools export."""
import json
import subprocess
import time

from conftest import BINARY, PROJECT, Api, Daemon, ok
from test_mfa import totp


def run(*args):
    result = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_firebase_tools_export_imports_cleanly(tmp_path):
    export = tmp_path / "fb-export"
    (export / "auth_export").mkdir(parents=True)
    (export / "firebase-export-metadata.json").write_text(json.dumps(
        {"version": "15.28.1", "auth": {"version": "15.28.1", "path": "auth_export"}}))
    (export / "auth_export" / "config.json").write_text(json.dumps(
        {"signIn": {"allowDuplicateEmails": False}, "emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}}))
    (export / "auth_export" / "accounts.json").write_text(json.dumps({
        "kind": "identitytoolkit#DownloadAccountResponse",
        "users": [{"localId": "fb1", "email": "fb1@example.com", "emailVerified": True,
                   "passwordHash": "fakeHash:salt=fakeSaltAbc:password=hunter22", "salt": "fakeSaltAbc",
                   "passwordUpdatedAt": 1700000000000,
                   "providerUserInfo": [{"providerId": "password", "email": "fb1@example.com",
                                         "federatedId": "fb1@example.com", "rawId": "fb1@example.com"}],
                   "createdAt": "1700000000000", "lastLoginAt": "1700000000000",
                   "mfaInfo": [{"mfaEnrollmentId": "m1", "phoneInfo": "+15555550140",
                                "enrolledAt": "2024-01-01T00:00:00.000Z"}]},
                  {"localId": "fb2", "phoneNumber": "+15555550141",
                   "providerUserInfo": [{"providerId": "phone", "rawId": "+15555550141",
                                         "phoneNumber": "+15555550141"}]}]}))
    (export / "auth_export" / "accounts-tenant-x.json").write_text(json.dumps(
        {"kind": "identitytoolkit#DownloadAccountResponse", "users": [{"localId": "t1", "email": "t1@example.com"}]}))

    daemon = Daemon(tmp_path, extra=["--import", str(export)]).start()
    try:
        api = Api(daemon.base)
        first = api.v1("accounts:signInWithPassword", {"email": "fb1@example.com", "password": "hunter22"}).json()
        assert first["mfaInfo"][0]["mfaEnrollmentId"] == "m1"
        assert api.v1(f"projects/{PROJECT}/accounts:lookup", {"phoneNumber": ["+15555550141"]},
                      admin=True).json()["users"][0]["localId"] == "fb2"
        tenant_user = api.v1(f"projects/{PROJECT}/tenants/tenant-x/accounts:lookup", {"localId": ["t1"]}, admin=True)
        assert tenant_user.json()["users"][0]["email"] == "t1@example.com"
    finally:
        daemon.stop()


def test_export_then_import_loses_nothing(tmp_path):
    source = tmp_path / "source.sqlite"
    target = tmp_path / "target.sqlite"
    daemon = Daemon(tmp_path, ephemeral=False)
    daemon.data = source
    daemon.start()
    try:
        api = Api(daemon.base)
        ok(api.admin("PATCH", f"v2/projects/{PROJECT}/config",
                     {"mfa": {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED",
                                                                       "totpProviderConfig": {"adjacentIntervals": 2}}]}},
                     params={"updateMask": "mfa"}))
        ok(api.v1(f"projects/{PROJECT}/accounts", {"localId": "e1", "email": "e1@example.com", "password": "secret123",
                                                    "emailVerified": True}, admin=True))
        ok(api.v1(f"projects/{PROJECT}/accounts:update", {"localId": "e1", "mfa": {"enrollments": [
               {"mfaEnrollmentId": "totp1", "totpInfo": {}}]}}, admin=True))
        code_before = api.session.get(f"{api.base}/emulator/v1/projects/{PROJECT}/totpCodes",
                                      params={"localId": "e1"}).json()["code"]
        tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "Kept"}).json()["tenantId"]
        ok(api.v1(f"projects/{PROJECT}/tenants/{tenant}/accounts", {"localId": "te1"}, admin=True))
    finally:
        daemon.stop()

    out = tmp_path / "export"
    assert "exported 2 account(s)" in run("export", str(out), "--data", str(source), "--project", PROJECT)
    assert (out / "auth_export" / "accounts.json").exists()
    assert (out / f"auth_export" / f"accounts-{tenant}.json").exists()
    assert "imported 2 account(s)" in run("import", str(out), "--data", str(target), "--project", PROJECT)

    daemon = Daemon(tmp_path, ephemeral=False)
    daemon.data = target
    daemon.start()
    try:
        api = Api(daemon.base)
        config = api.admin("GET", f"v2/projects/{PROJECT}/config").json()
        assert config["mfa"]["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 2
        assert api.admin("GET", f"v2/projects/{PROJECT}/tenants/{tenant}").json()["displayName"] == "Kept"
        signed_in = api.v1("accounts:signInWithPassword", {"email": "e1@example.com", "password": "secret123"})
        assert "mfaPendingCredential" in signed_in.json()
        exported = json.loads((out / "auth_export" / "accounts.json").read_text())["users"]
        secret = [u for u in exported if u["localId"] == "e1"][0]["mfaInfo"][0]["totpSecret"]
        before = time.time()
        code_after = api.session.get(f"{api.base}/emulator/v1/projects/{PROJECT}/totpCodes",
                                     params={"localId": "e1", "mfaEnrollmentId": "totp1"}).json()["code"]
        assert code_after in {totp(secret, before), totp(secret, time.time())}
        assert code_before in {totp(secret, before - 5), totp(secret, before), totp(secret, before - 35)}
    finally:
        daemon.stop()


def test_reset_empties_state_and_keeps_config(tmp_path):
    daemon = Daemon(tmp_path, ephemeral=False).start()
    try:
        api = Api(daemon.base)
        ok(api.admin("PATCH", f"v2/projects/{PROJECT}/config",
                     {"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550177": "123123"}}}},
                     params={"updateMask": "signIn.phoneNumber.testPhoneNumbers"}))
        ok(api.v1("accounts:signUp", {"email": "r1@example.com", "password": "secret123"}))
        ok(api.v1(f"projects/{PROJECT}/tenants/rt/accounts", {"localId": "rt-user"}, admin=True))
        ok(api.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550177"}))
    finally:
        daemon.stop()
    assert "removed 2 account(s)" in run("reset", "--data", str(daemon.data), "--project", PROJECT)
    daemon.start()
    try:
        api = Api(daemon.base)
        assert "users" not in api.admin("GET", f"v1/projects/{PROJECT}/accounts:batchGet").json()
        assert api.session.get(f"{api.base}/emulator/v1/projects/{PROJECT}/smsMessages").json() == {"smsMessages": []}
        config = api.admin("GET", f"v2/projects/{PROJECT}/config").json()
        assert config["signIn"]["phoneNumber"]["testPhoneNumbers"] == {"+15555550177": "123123"}
    finally:
        daemon.stop()
