"""A team seeds authemu from a production export: users imported with production's password
hashes (the Python Admin SDK's import_users) sign in with their real passwords."""
import base64
import hashlib
import hmac

import pytest

from conftest import error_message

PASSWORD = "correct horse"
SALT = b"NaCl-salt"


def cases():
    from firebase_admin import auth

    h = auth.UserImportHash
    return [
        ("hmac_sha256", h.hmac_sha256(key=b"secret"), hmac.new(b"secret", PASSWORD.encode() + SALT, "sha256").digest()),
        ("hmac_sha1", h.hmac_sha1(key=b"secret"), hmac.new(b"secret", PASSWORD.encode() + SALT, "sha1").digest()),
        ("hmac_sha512", h.hmac_sha512(key=b"secret"), hmac.new(b"secret", PASSWORD.encode() + SALT, "sha512").digest()),
        ("hmac_md5", h.hmac_md5(key=b"secret"), hmac.new(b"secret", PASSWORD.encode() + SALT, "md5").digest()),
        ("md5", h.md5(rounds=0), hashlib.md5(SALT + PASSWORD.encode()).digest()),
        ("sha1", h.sha1(rounds=1), hashlib.sha1(SALT + PASSWORD.encode()).digest()),
        ("sha256", h.sha256(rounds=2), hashlib.sha256(hashlib.sha256(SALT + PASSWORD.encode()).digest()).digest()),
        ("sha512", h.sha512(rounds=1), hashlib.sha512(SALT + PASSWORD.encode()).digest()),
        ("pbkdf_sha1", h.pbkdf_sha1(rounds=1000), hashlib.pbkdf2_hmac("sha1", PASSWORD.encode(), SALT, 1000, 20)),
        ("pbkdf2_sha256", h.pbkdf2_sha256(rounds=100000),
         hashlib.pbkdf2_hmac("sha256", PASSWORD.encode(), SALT, 100000, 64)),
        ("standard_scrypt", h.standard_scrypt(memory_cost=1024, parallelization=16, block_size=8, derived_key_length=64),
         hashlib.scrypt(PASSWORD.encode(), salt=SALT, n=1024, r=8, p=16, dklen=64)),
    ]


def import_and_sign_in(api, admin_auth, name, hash_options, password_hash, salt, password):
    auth, app = admin_auth
    email = f"{name}@example.com"
    result = auth.import_users([auth.ImportUserRecord(uid=f"imp-{name}", email=email, password_hash=password_hash,
                                                      password_salt=salt)], hash_alg=hash_options, app=app)
    assert (result.success_count, result.failure_count) == (1, 0)
    wrong = api.v1("accounts:signInWithPassword", {"email": email, "password": password + "x"})
    assert error_message(wrong) == "INVALID_PASSWORD"
    first = api.v1("accounts:signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
    assert first.status_code == 200, first.text
    # Re-hashed the emulator's way at the first sign-in, as production does; it keeps working.
    again = api.v1("accounts:signInWithPassword", {"email": email, "password": password})
    assert again.status_code == 200, again.text


@pytest.mark.parametrize("index", range(11))
def test_production_hashes_sign_in_with_the_real_password(api, admin_auth, index):
    name, options, digest = cases()[index]
    import_and_sign_in(api, admin_auth, name, options, digest, SALT, PASSWORD)


def test_firebase_scrypt_from_a_production_export(api, admin_auth):
    """The example of github.com/firebase/scrypt: a project's hash parameters and one exported user."""
    from firebase_admin import auth

    options = auth.UserImportHash.scrypt(
        key=base64.b64decode("jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="),
        salt_separator=base64.b64decode("Bw=="), rounds=8, memory_cost=14)
    digest = base64.b64decode("lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")
    import_and_sign_in(api, admin_auth, "scrypt", options, digest, base64.b64decode("42xEC+ixf3L2lw=="),
                       "user1password")


def test_bcrypt_and_the_hash_options_in_an_authemu_download(api, admin_auth):
    from firebase_admin import auth

    stored = b"$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"  # openwall's vector for "U*U"
    auth_module, app = admin_auth
    result = auth_module.import_users([auth.ImportUserRecord(uid="imp-bcrypt", email="bcrypt@example.com",
                                                             password_hash=stored)],
                                      hash_alg=auth.UserImportHash.bcrypt(), app=app)
    assert result.success_count == 1
    downloaded = [u for u in api.admin("GET", "v1/projects/e2e-project/accounts:batchGet",
                                       params={"maxResults": -1}).json()["users"] if u["localId"] == "imp-bcrypt"][0]
    assert downloaded["emulatorPasswordHash"] == {"algorithm": "BCRYPT"}
    assert "emulatorPasswordHash" not in api.v1("accounts:lookup", {"localId": ["imp-bcrypt"]},
                                                 admin=True).json()["users"][0]
    signed_in = api.v1("accounts:signInWithPassword", {"email": "bcrypt@example.com", "password": "U*U"})
    assert signed_in.status_code == 200, signed_in.text
    bad = api.admin("POST", "v1/projects/e2e-project/accounts:batchCreate",
                    {"hashAlgorithm": "ROT13", "users": [{"localId": "x", "passwordHash": "YQ=="}]})
    assert (bad.status_code, error_message(bad)) == (400, "INVALID_HASH_ALGORITHM : Unsupported hash algorithm ROT13.")


def firebase_scrypt(password, salt, key, separator, rounds, memory_cost):
    """Firebase's modified scrypt computed independently (hashlib and cryptography's AES-CTR)."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    derived = hashlib.scrypt(password.encode(), salt=salt + separator, n=2 ** memory_cost, r=rounds, p=1, dklen=64)
    encryptor = Cipher(algorithms.AES(derived[:32]), modes.CTR(bytes(16))).encryptor()
    return encryptor.update(key) + encryptor.finalize()


@pytest.mark.parametrize("rounds", range(1, 9))
def test_firebase_scrypt_signs_in_for_every_rounds_production_accepts(api, admin_auth, rounds):
    from firebase_admin import auth

    key, separator, salt = b"a-project-signer-key-0123456789abcdef", b"\x07", b"salt-%d" % rounds
    digest = firebase_scrypt(PASSWORD, salt, key, separator, rounds, 10)
    options = auth.UserImportHash.scrypt(key=key, salt_separator=separator, rounds=rounds, memory_cost=10)
    import_and_sign_in(api, admin_auth, f"scrypt-r{rounds}", options, digest, salt, PASSWORD)


def test_a_downloaded_scrypt_user_uploads_back_and_signs_in(api, admin_auth):
    from firebase_admin import auth

    key, separator, salt = b"another-signer-key", b"\x01\x02", b"round-trip"
    auth_module, app = admin_auth
    digest = firebase_scrypt(PASSWORD, salt, key, separator, 4, 9)
    auth_module.import_users([auth.ImportUserRecord(uid="trip", email="trip@example.com", password_hash=digest,
                                                    password_salt=salt)],
                             hash_alg=auth.UserImportHash.scrypt(key=key, salt_separator=separator, rounds=4,
                                                                 memory_cost=9), app=app)
    path = "v1/projects/e2e-project/accounts"
    record = [u for u in api.admin("GET", f"{path}:batchGet", params={"maxResults": -1}).json()["users"]
              if u["localId"] == "trip"][0]
    assert record["emulatorPasswordHash"] == {"algorithm": "SCRYPT", "signerKey": base64.b64encode(key).decode(),
                                              "saltSeparator": "AQI=", "rounds": 4, "memoryCost": 9}
    ok = api.admin("POST", f"{path}:batchDelete", {"localIds": ["trip"], "force": True})
    assert ok.status_code == 200, ok.text
    uploaded = api.admin("POST", f"{path}:batchCreate", {"users": [record]})
    assert uploaded.status_code == 200 and "error" not in uploaded.json(), uploaded.text
    signed_in = api.v1("accounts:signInWithPassword", {"email": "trip@example.com", "password": PASSWORD})
    assert signed_in.status_code == 200, signed_in.text


@pytest.mark.parametrize("body, message", [
    ({"hashAlgorithm": "SCRYPT", "signerKey": "AQ==", "rounds": 17, "memoryCost": 14},
     "INVALID_HASH_ROUNDS : must be from 1 to 8."),
    ({"hashAlgorithm": "STANDARD_SCRYPT", "cpuMemCost": 1048576, "blockSize": 8, "parallelization": 1},
     "INVALID_HASH_MEMORY_COST : scrypt's work (memoryCost × blockSize × parallelization) must be at most 2^20, "
     "its memory (128 × blockSize × memoryCost) at most 128 MiB."),
    ({"hashAlgorithm": "HMAC_SHA256"}, "INVALID_HASH_KEY : HMAC needs a signer key."),
])
def test_hash_options_beyond_the_bounds_are_refused(api, body, message):
    refused = api.admin("POST", "v1/projects/e2e-project/accounts:batchCreate",
                        {**body, "users": [{"localId": "x", "passwordHash": "YQ=="}]})
    assert (refused.status_code, error_message(refused)) == (400, message)


def test_a_bcrypt_hash_of_cost_16_is_refused_for_its_user_only(api):
    slow = base64.b64encode(b"$2a$16$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW").decode()
    answer = api.admin("POST", "v1/projects/e2e-project/accounts:batchCreate",
                       {"hashAlgorithm": "BCRYPT", "users": [{"localId": "slow", "passwordHash": slow},
                                                             {"localId": "plain", "rawPassword": "secret123"}]})
    assert answer.status_code == 200
    assert answer.json()["error"] == [
        {"index": 0, "message": "INVALID_PASSWORD_HASH : a bcrypt hash ($2a$, $2b$ or $2y$) of cost 4 to 12."}]
