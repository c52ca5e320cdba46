"""Fuzzing every route (issue 8 §5): malformed, mistyped, oversized and deeply nested JSON, bad
query strings and headers. Zero 5xx, the daemon keeps serving. AUTHEMU_FUZZ_EXAMPLES scales it.
The routes are the daemon's own OpenAPI document, which its route table builds: a new route is
fuzzed without being listed here."""
import base64
import json
import os
import re
import urllib.parse
import uuid

import pytest
import requests
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import PROJECT, Daemon

POSTGRES_URL = os.environ.get("AUTHEMU_TEST_POSTGRES_URL")

EXAMPLES = int(os.environ.get("AUTHEMU_FUZZ_EXAMPLES", "150"))
FIELDS = ["email", "password", "idToken", "refreshToken", "grantType", "phoneNumber", "sessionInfo", "code",
          "localId", "tenantId", "mfaPendingCredential", "mfaEnrollmentId", "phoneEnrollmentInfo",
          "totpEnrollmentInfo", "phoneVerificationInfo", "totpVerificationInfo", "users", "requestType", "mfa",
          "customAttributes", "validSince", "token", "postBody", "requestUri", "oobCode", "kind", "fault", "count",
          "signIn", "testPhoneNumbers", "mfaConfig", "emulatorSettings", "recaptchaConfig", "localIds", "appToken",
          "authenticatorRegistrationResponse", "authenticatorAuthenticationResponse", "deletePasskey",
          "passwordPolicyConfig", "name", "smsRegionConfig", "allowByDefault", "allowlistOnly", "allowedRegions",
          "disallowedRegions"]



def unsigned_jwt(claims):
    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return part({"alg": "none", "typ": "JWT"}) + "." + part(claims) + "."


# Well-formed tokens with hostile claims: ID tokens and refresh tokens are only base64 JSON, so
# every number in them (iat, issuedAt, ...) comes from the client.
claims = st.dictionaries(
    st.sampled_from(["user_id", "sub", "aud", "iat", "exp", "auth_time", "firebase", "localId", "projectId",
                     "provider", "issuedAt", "tenantId", "secondFactor", "_AuthEmulatorRefreshToken"]),
    st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=False), st.just(1e300), st.text(max_size=10),
              st.just("DO NOT MODIFY"), st.dictionaries(st.sampled_from(["tenant", "identifier"]), st.text(max_size=5))),
    max_size=7)
tokens = st.one_of(claims.map(unsigned_jwt), claims.map(lambda c: base64.b64encode(json.dumps(c).encode()).decode()))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**63), st.floats(allow_nan=False),
                    st.text(max_size=40), st.sampled_from(["", "+15555550100", "NO_RECAPTCHA", "x" * 5000, "{"]),
                    tokens)
values = st.recursive(scalars, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), children,
                                                    max_size=5)), max_leaves=12)
bodies = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS), values, max_size=6).map(json.dumps),
    values.map(json.dumps),
    st.integers(1, 3000).map(lambda depth: '{"a":' + "[" * depth + "]" * depth + "}"),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.sampled_from(["", "{", '{"email":', "null", "[]", '{"email":"a@b.c","password":"' + "p" * 100000 + '"}']),
)
queries = st.dictionaries(st.sampled_from(["key", "updateMask", "wait", "after", "limit", "phoneNumber", "purpose",
                                           "status", "maxResults", "pageSize", "clientType", "version", "mode",
                                           "oobCode", "localId", "tenantId", "nextPageToken"]),
                          st.text(max_size=20), max_size=4)
headers = st.dictionaries(st.sampled_from(["Authorization", "Content-Type", "X-Forwarded-For", "x-goog-api-key",
                                           "Origin", "Connection"]),
                          st.sampled_from(["Bearer owner", "Bearer x", "Basic abc", "application/json",
                                           "application/x-www-form-urlencoded", "text/plain", "10.0.0.1", "k",
                                           "http://evil.test", "close", ""]), max_size=3)

tried = {"sqlite": 0, "postgres": 0}
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="session")
def routes(daemon):
    """(method, path) of every operation of /emulator/openapi.json, its parameters filled in."""
    spec = requests.get(f"{daemon.base}/emulator/openapi.json").json()
    values = {"project": PROJECT, "tenant": "t1"}
    found = []
    for path, item in sorted(spec["paths"].items()):
        prefix = urllib.parse.urlparse((item.get("servers") or spec["servers"])[0]["url"]).path.rstrip("/")
        concrete = re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), "x"), prefix + path)
        found += [(method.upper(), concrete) for method in sorted(item) if method in METHODS]
    assert len(found) > 100, found
    return found


@pytest.fixture(scope="session")
def postgres_daemon(tmp_path_factory):
    """A daemon on the PostgreSQL server scripts/test starts, on a schema of its own."""
    if not POSTGRES_URL:
        pytest.skip("AUTHEMU_TEST_POSTGRES_URL is not set (scripts/test sets it)")
    schema = f"fuzz_{uuid.uuid4().hex[:12]}"
    daemon = Daemon(tmp_path_factory.mktemp("fuzz-postgres"),
                    store=f"{POSTGRES_URL}{'&' if '?' in POSTGRES_URL else '?'}schema={schema}").start()
    yield daemon
    daemon.stop()


def fuzz_once(daemon, store, route, body, query, header):
    method, path = route
    query = {**query, "wait": "0"} if "wait" in query else query
    response = requests.request(method, daemon.base + path, params=query, data=body.encode("utf-8", "replace"),
                                headers=header, timeout=30)
    tried[store] += 1
    # 501 NOT_IMPLEMENTED is a documented answer (features the emulator leaves out), not a failure.
    deliberate = response.status_code == 501 and "NOT_IMPLEMENTED" in response.text
    assert response.status_code < 500 or deliberate, (method, path, response.status_code, response.text[:300])
    if response.status_code >= 400 and response.headers.get("content-type", "").startswith("application/json"):
        envelope = response.json()
        assert "error" in envelope or "authEmulator" in envelope


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), body=bodies, query=queries, header=headers)
def test_no_route_answers_5xx(daemon, routes, data, body, query, header):
    fuzz_once(daemon, "sqlite", data.draw(st.sampled_from(routes), label="route"), body, query, header)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), body=bodies, query=queries, header=headers)
def test_no_route_answers_5xx_on_postgres(postgres_daemon, routes, data, body, query, header):
    """The same inputs on the PostgreSQL store, whose text cannot hold what SQLite's can (NUL)."""
    fuzz_once(postgres_daemon, "postgres", data.draw(st.sampled_from(routes), label="route"), body, query, header)


# The credential edges (issue 53): a daemon with an admin token of its own, sent everything that is
# not that credential, with every JSON shape of what could widen its scope. The routes' declared
# credentials come from the same document (`security`), so a route added later is covered.
OWN_TOKEN = "fuzz-admin-token"
not_the_admin = st.sampled_from([
    {}, {"Authorization": "Bearer x"}, {"Authorization": "Bearer owner"},
    {"Authorization": f"Bearer {OWN_TOKEN}x"}, {"Authorization": f"Bearer {OWN_TOKEN[:-1]}"},
    {"Authorization": f"Bearer {OWN_TOKEN.upper()}"}, {"Authorization": f"Basic {OWN_TOKEN}"},
    {"Authorization": OWN_TOKEN}, {"Authorization": "Bearer ya29.a0AfH6SM"}, {"Origin": "http://evil.test"},
])
scope_shapes = st.one_of(st.none(), st.just(""), st.just(PROJECT), st.just("other-project"), st.text(max_size=12),
                         st.integers(-2**40, 2**40), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
                         st.lists(st.text(max_size=6), max_size=2),
                         st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2))
tried_credentials = {"cases": 0}


@pytest.fixture(scope="session")
def own_token_daemon(tmp_path_factory):
    daemon = Daemon(tmp_path_factory.mktemp("fuzz-own-token"), env={"AUTHEMU_ADMIN_TOKEN": OWN_TOKEN}).start()
    yield daemon
    daemon.stop()


@pytest.fixture(scope="session")
def secured_routes(own_token_daemon):
    """(method, path, schemes) of every operation that takes a credential: the schemes it lists."""
    spec = requests.get(f"{own_token_daemon.base}/emulator/openapi.json").json()
    found = []
    for path, item in sorted(spec["paths"].items()):
        prefix = urllib.parse.urlparse((item.get("servers") or spec["servers"])[0]["url"]).path.rstrip("/")
        concrete = re.sub(r"\{(\w+)\}", lambda m: {"project": PROJECT, "tenant": "t1"}.get(m.group(1), "x"),
                          prefix + path)
        for method in sorted(set(item) & METHODS):
            choices = item[method].get("security", [])
            if choices and all(choices):  # an empty choice: no credential needed (the emulator API)
                found.append((method.upper(), concrete, frozenset(name for choice in choices for name in choice)))
    assert len(found) > 100, len(found)
    return found


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), credential=not_the_admin, field=st.sampled_from(["targetProjectId", "tenantId"]),
       value=scope_shapes, where=st.sampled_from(["body", "query"]), key=st.booleans())
def test_no_credential_but_the_admins_reaches_an_admin_route_or_names_a_project(
        own_token_daemon, secured_routes, data, credential, field, value, where, key):
    method, path, schemes = data.draw(st.sampled_from(secured_routes), label="route")
    params = {"key": "fuzz-key"} if key else {}
    body = {}
    if where == "query" and value is not None:
        params[field] = value if isinstance(value, str) else json.dumps(value)
    else:
        body[field] = value
    response = requests.request(method, own_token_daemon.base + path, params=params, json=body,
                                headers=credential, timeout=30)
    tried_credentials["cases"] += 1
    status, text = response.status_code, response.text[:300]
    deliberate = status == 501 and "NOT_IMPLEMENTED" in text
    assert status < 500 or deliberate, (method, path, status, text)
    admin_only = schemes == {"admin"}
    names_a_project = field == "targetProjectId" and (where == "query" and value is not None or method != "GET")
    if admin_only or names_a_project:
        assert not 200 <= status < 300, (method, path, credential, field, value, where, status, text)
        error = response.json()["error"]
        assert (error.get("status") in {"PERMISSION_DENIED", "UNAUTHENTICATED"}
                or error["message"].startswith("INSUFFICIENT_PERMISSION")), (method, path, status, text)


@pytest.mark.parametrize("store", ["sqlite", "postgres"])
def test_daemon_still_serves_after_fuzzing(request, store):
    if store == "postgres" and not POSTGRES_URL:
        pytest.skip("AUTHEMU_TEST_POSTGRES_URL is not set (scripts/test sets it)")
    daemon = request.getfixturevalue("daemon" if store == "sqlite" else "postgres_daemon")
    print(f"\nfuzzed inputs on {store}: {tried[store]}")
    # A fuzz run that tried nothing (deselected, or every example rejected) proves nothing.
    assert tried[store] >= EXAMPLES // 2, f"the fuzz test ran {tried[store]} of {EXAMPLES} cases on {store}"
    assert requests.get(f"{daemon.base}/readyz").json() == {"status": "ready"}
    if store == "sqlite":
        print(f"credential cases: {tried_credentials['cases']}")
        assert tried_credentials["cases"] >= EXAMPLES // 2, "the credential fuzz test ran too few cases"
