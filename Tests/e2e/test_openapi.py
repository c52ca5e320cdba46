"""/emulator/openapi.json is a valid OpenAPI document that generated clients can use: paths keyed
relative to their servers (firebase-tools' layout), every path parameter declared."""
import openapi_spec_validator
import requests
import schemathesis


def test_openapi_document_is_valid_and_loads_in_schemathesis(daemon):
    spec = requests.get(f"{daemon.base}/emulator/openapi.json").json()
    openapi_spec_validator.validate(spec)
    assert spec["servers"] == [{"url": f"http://127.0.0.1:{daemon.port}/identitytoolkit.googleapis.com"}]
    assert "/v1/accounts:signUp" in spec["paths"]
    schema = schemathesis.openapi.from_dict(spec)
    operations = [result.ok() for result in schema.get_all_operations()]
    methods = {"get", "post", "put", "patch", "delete"}
    assert len(operations) == sum(len(methods & item.keys()) for item in spec["paths"].values())
    # A client built from the document reaches the daemon: server URL + relative path.
    sign_up = next(op for op in operations if op.path == "/v1/accounts:signUp" and op.method == "post")
    base = spec["servers"][0]["url"]
    created = requests.post(f"{base}{sign_up.path}", params={"key": "k"},
                            json={"email": "openapi@example.com", "password": "secret123"})
    assert created.status_code == 200, created.text
    assert created.json()["email"] == "openapi@example.com"
