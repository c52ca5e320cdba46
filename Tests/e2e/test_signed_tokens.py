"""`--token-signing rs256`: tokens verified by google-auth and PyJWT against the daemon's key URLs."""
import google.auth.transport.requests
import jwt
import pytest
import requests
from google.oauth2 import id_token as google_id_token

from conftest import PROJECT, Daemon

CERTIFICATES = "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
JWKS = "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"


@pytest.fixture
def signing_daemon(tmp_path):
    instance = Daemon(tmp_path, ephemeral=False, extra=["--token-signing", "rs256"]).start()
    yield instance
    instance.stop()


def sign_up(base, email):
    reply = requests.post(f"{base}/identitytoolkit.googleapis.com/v1/accounts:signUp", params={"key": "k"},
                          json={"email": email, "password": "secret123", "returnSecureToken": True})
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_signed_tokens_verify_with_the_published_keys_across_a_restart(signing_daemon):
    base = signing_daemon.base
    user = sign_up(base, "signed@example.com")
    token = user["idToken"]
    header = jwt.get_unverified_header(token)
    assert header["alg"] == "RS256"

    # What firebase-admin does in production: google-auth with the X.509 certificate URL.
    session = google.auth.transport.requests.Request()
    claims = google_id_token.verify_token(token, session, audience=PROJECT, certs_url=base + CERTIFICATES)
    assert claims["user_id"] == user["localId"]
    assert claims["iss"] == f"https://securetoken.google.com/{PROJECT}"

    # A generic verifier with the JWKS URL.
    key = jwt.PyJWKClient(base + JWKS).get_signing_key_from_jwt(token)
    decoded = jwt.decode(token, key.key, algorithms=["RS256"], audience=PROJECT,
                         issuer=f"https://securetoken.google.com/{PROJECT}")
    assert decoded["sub"] == user["localId"]
    with pytest.raises(jwt.InvalidSignatureError):
        head, payload, signature = token.split(".")
        jwt.decode(f"{head}.{payload}.{signature[:-4]}AAAA", key.key, algorithms=["RS256"], audience=PROJECT)

    # The key is in the database: after a restart the old token still verifies and new ones use it.
    signing_daemon.stop()
    signing_daemon.start()
    assert google_id_token.verify_token(token, session, audience=PROJECT, certs_url=base + CERTIFICATES)
    again = sign_up(base, "again@example.com")
    assert jwt.get_unverified_header(again["idToken"])["kid"] == header["kid"]


def test_a_bad_token_signing_value_stops_startup(tmp_path):
    daemon = Daemon(tmp_path, extra=["--token-signing", "hs256"])
    with pytest.raises(RuntimeError) as failure:
        daemon.start()
    assert "token_signing" in str(failure.value) and "none or rs256" in str(failure.value)
