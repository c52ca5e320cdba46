"""A known state loaded into a running daemon: POST /emulator/v1/projects/{p}[/tenants/{t}]:import with an export's
accounts.json (and config.json), and `authemu import --url` on top of it (issue 44). Runs on both stores (the shared
daemon is on PostgreSQL under AUTHEMU_E2E_STORE)."""
import json
import re
import subprocess
import time

import requests

from conftest import BINARY, PROJECT, error_message

FAKE_HASH_USER = {"localId": "run1", "email": "run1@example.com", "emailVerified": True,
                  "passwordHash": "fakeHash:salt=fakeSaltAbc:password=hunter22", "salt": "fakeSaltAbc",
                  "providerUserInfo": [{"providerId": "password", "email": "run1@example.com",
                                        "federatedId": "run1@example.com", "rawId": "run1@example.com"}],
                  "createdAt": "1700000000000"}


def post_import(api, body, tenant=None):
    path = f"/emulator/v1/projects/{PROJECT}" + (f"/tenants/{tenant}" if tenant else "") + ":import"
    return requests.post(api.base + path, json=body)


def test_accounts_and_config_loaded_into_the_running_daemon(api):
    loaded = post_import(api, {"users": [FAKE_HASH_USER, {"localId": "run2", "phoneNumber": "+15555550191"}],
                               "config": {"signIn": {"allowDuplicateEmails": True}}})
    assert (loaded.status_code, loaded.json()) == (200, {"importedCount": 2})
    signed_in = api.v1("accounts:signInWithPassword", {"email": "run1@example.com", "password": "hunter22"})
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["localId"] == "run1"
    config = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/config").json()
    assert config["signIn"] == {"allowDuplicateEmails": True}
    # Again: the same uids are replaced, nothing doubles.
    again = post_import(api, {"users": [dict(FAKE_HASH_USER, displayName="Again")]})
    assert (again.status_code, again.json()) == (200, {"importedCount": 1})
    looked_up = api.v1(f"projects/{PROJECT}/accounts:lookup", {"localId": ["run1"]}, admin=True).json()["users"]
    assert [(u["localId"], u.get("displayName")) for u in looked_up] == [("run1", "Again")]
    # A tenant's accounts.json.
    on_tenant = post_import(api, {"users": [{"localId": "tr1", "email": "tr1@example.com"}]}, tenant="tenant-run")
    assert (on_tenant.status_code, on_tenant.json()) == (200, {"importedCount": 1})
    tenant_user = api.v1(f"projects/{PROJECT}/tenants/tenant-run/accounts:lookup", {"localId": ["tr1"]}, admin=True)
    assert tenant_user.json()["users"][0]["email"] == "tr1@example.com"


def test_refusals_and_bad_bodies(api):
    partly = post_import(api, {"users": [{"localId": "good1"}, {"localId": "bad1", "email": "not-an-email"}]})
    assert partly.status_code == 200, partly.text
    assert partly.json() == {"importedCount": 1,
                             "error": [{"index": 1, "message": "email is invalid"}]}
    for body, message in (
        ({}, 'INVALID_ARGUMENT : the body holds "users" (an accounts.json\'s) and/or "config"'),
        ({"users": "x"}, 'INVALID_ARGUMENT : an accounts.json holds {"users": [...]}'),
        ({"users": [], "config": []}, "Invalid JSON payload received. /config must be object"),
    ):
        answer = post_import(api, body)
        assert (answer.status_code, error_message(answer)) == (400, message)
    on_tenant = post_import(api, {"config": {"signIn": {"allowDuplicateEmails": True}}}, tenant="t-conf")
    assert error_message(on_tenant) == 'INVALID_ARGUMENT : "config" is a project\'s: import it without a tenant'
    not_json = requests.post(f"{api.base}/emulator/v1/projects/{PROJECT}:import", data="users",
                             headers={"Content-Type": "application/json"})
    assert not_json.status_code == 400


def test_cli_import_url_and_a_thousand_accounts(api, tmp_path):
    export = tmp_path / "export"
    (export / "auth_export").mkdir(parents=True)
    (export / "firebase-export-metadata.json").write_text(json.dumps(
        {"version": "15.28.1", "auth": {"version": "15.28.1", "path": "auth_export"}}))
    (export / "auth_export" / "config.json").write_text(json.dumps(
        {"signIn": {"allowDuplicateEmails": False}, "emailPrivacyConfig": {"enableImprovedEmailPrivacy": True}}))
    users = [dict(FAKE_HASH_USER, localId=f"k{n:04d}", email=f"k{n:04d}@example.com",
                  providerUserInfo=[{"providerId": "password", "email": f"k{n:04d}@example.com",
                                     "federatedId": f"k{n:04d}@example.com", "rawId": f"k{n:04d}@example.com"}])
             for n in range(1000)]
    (export / "auth_export" / "accounts.json").write_text(json.dumps({"users": users}))
    (export / "auth_export" / "accounts-tenant-cli.json").write_text(json.dumps(
        {"users": [{"localId": "tc1", "email": "tc1@example.com"}]}))
    started = time.monotonic()
    result = subprocess.run([BINARY, "import", str(export), "--url", api.base, "--project", PROJECT],
                            capture_output=True, text=True, timeout=300)
    took = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"imported 1001 account(s) into project {PROJECT} at {api.base}"
    print(f"\n1,000 accounts (fakeHash passwords) + 1 tenant account through authemu import --url: {took:.2f} s")
    assert api.v1("accounts:signInWithPassword",
                  {"email": "k0999@example.com", "password": "hunter22"}).json()["localId"] == "k0999"
    config = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/config").json()
    assert config["emailPrivacyConfig"] == {"enableImprovedEmailPrivacy": True}
    tenant_user = api.v1(f"projects/{PROJECT}/tenants/tenant-cli/accounts:lookup", {"localId": ["tc1"]}, admin=True)
    assert tenant_user.json()["users"][0]["email"] == "tc1@example.com"
    both = subprocess.run([BINARY, "import", str(export), "--url", api.base, "--data", str(tmp_path / "x.sqlite")],
                          capture_output=True, text=True, timeout=60)
    assert both.returncode != 0 and "give --url or --data/--store, not both" in both.stderr
    unreachable = subprocess.run([BINARY, "import", str(export), "--url", "http://127.0.0.1:1"],
                                 capture_output=True, text=True, timeout=60)
    assert unreachable.returncode == 2
    assert "import: cannot reach the daemon at http://127.0.0.1:1" in unreachable.stderr


def test_cli_reset_to_a_known_state(api, tmp_path):
    """`authemu reset --to DIR`: one call that empties the project (and its tenants) and loads an export, on a
    running daemon (--url) and on a database file."""
    export = tmp_path / "export"
    (export / "auth_export").mkdir(parents=True)
    (export / "firebase-export-metadata.json").write_text(json.dumps(
        {"version": "15.28.1", "auth": {"version": "15.28.1", "path": "auth_export"}}))
    (export / "auth_export" / "accounts.json").write_text(json.dumps({"users": [FAKE_HASH_USER]}))
    (export / "auth_export" / "accounts-tenant-known.json").write_text(json.dumps(
        {"users": [{"localId": "kt1", "email": "kt1@example.com"}]}))
    assert post_import(api, {"users": [{"localId": "stray", "email": "stray@example.com"}]}).status_code == 200
    assert post_import(api, {"users": [{"localId": "stray-t"}]}, tenant="tenant-known").status_code == 200
    assert api.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550177"}).status_code == 200

    result = subprocess.run([BINARY, "reset", "--to", str(export), "--url", api.base, "--project", PROJECT],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.strip().splitlines()
    assert re.fullmatch(rf"reset project {PROJECT} and [1-9][0-9]* tenant\(s\) at {re.escape(api.base)}", first)
    assert second == f"imported 2 account(s) into project {PROJECT} at {api.base}"

    def uids(tenant=None):
        prefix = f"projects/{PROJECT}" + (f"/tenants/{tenant}" if tenant else "")
        answer = api.admin("GET", f"v1/{prefix}/accounts:batchGet", params={"maxResults": 100})
        assert answer.status_code == 200, answer.text
        return sorted(u["localId"] for u in answer.json().get("users", []))

    assert (uids(), uids("tenant-known")) == (["run1"], ["kt1"])
    codes = requests.get(f"{api.base}/emulator/v1/projects/{PROJECT}/verificationCodes").json()
    assert codes == {"verificationCodes": []}
    assert api.v1("accounts:signInWithPassword",
                  {"email": "run1@example.com", "password": "hunter22"}).json()["localId"] == "run1"

    database = tmp_path / "state.sqlite"
    on_file = subprocess.run([BINARY, "reset", "--to", str(export), "--data", str(database), "--project", PROJECT],
                             capture_output=True, text=True, timeout=120)
    assert on_file.returncode == 0, on_file.stderr
    assert on_file.stdout.splitlines() == [f"removed 0 account(s) of project {PROJECT}",
                                           f"imported 2 account(s) into project {PROJECT}"]
    refused = subprocess.run([BINARY, "reset", "--url", "http://127.0.0.1:9099", "--admin-token", "wrong", "--project",
                              PROJECT, "--to", str(export), "--data", str(database)],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "give --url or --data/--store, not both" in refused.stderr
