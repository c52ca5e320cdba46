"""`authemu mcp` driven by a real MCP client (the `mcp` package from PyPI) over stdio."""
import json
import time

import anyio
import requests
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import BINARY, PROJECT, free_port
from test_mfa import totp, v2, verified_email_user

TOOLS = {"list_users", "get_user", "create_user", "delete_user", "latest_sms_code", "totp_code",
         "email_action_links", "apns_pushes", "set_test_phone_numbers", "set_mfa", "advance_clock",
         "freeze_clock", "resume_clock", "import_accounts", "reset_project"}


def with_mcp(url, body, project=PROJECT):
    """Starts `authemu mcp --url URL`, initializes a session and runs `body(session)` in it."""
    async def main():
        server = StdioServerParameters(command=BINARY, args=["mcp", "--url", url, "--project", project])
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)
    return anyio.run(main)


async def call(session, name, arguments=None):
    """A tool's JSON answer; fails on an error result."""
    result = await session.call_tool(name, arguments or {})
    assert not result.is_error, result.content[0].text
    answer = json.loads(result.content[0].text)
    assert result.structured_content == answer
    return answer


async def failure(session, name, arguments=None):
    """An error result's text."""
    result = await session.call_tool(name, arguments or {})
    assert result.is_error, result.content[0].text
    return result.content[0].text


def test_tools_are_listed_with_schemas_and_descriptions(daemon):
    async def body(session):
        return (await session.list_tools()).tools
    tools = with_mcp(daemon.base, body)
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert tool.description and "\n" not in tool.description
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False
    by_name = {tool.name: tool for tool in tools}
    assert by_name["delete_user"].input_schema["required"] == ["uid"]
    assert by_name["set_mfa"].input_schema["properties"]["adjacentIntervals"]["maximum"] == 10


def test_sms_mfa_sign_in_with_the_code_from_latest_sms_code(api):
    user = verified_email_user(api, "mcp-sms@example.com")

    async def body(session):
        assert await call(session, "set_mfa", {"sms": True}) == {"sms": True, "totp": False, "adjacentIntervals": 5}
        started = v2(api, "mfaEnrollment:start", {"idToken": user["idToken"],
                                                   "phoneEnrollmentInfo": {"phoneNumber": "+15555550150"}})
        assert started.status_code == 200, started.text
        enrollment = await call(session, "latest_sms_code", {"phoneNumber": "+15555550150", "waitSeconds": 5})
        assert enrollment["purpose"] == "MFA_ENROLLMENT" and len(enrollment["code"]) == 6
        finalized = v2(api, "mfaEnrollment:finalize", {"idToken": user["idToken"], "phoneVerificationInfo": {
            "sessionInfo": started.json()["phoneSessionInfo"]["sessionInfo"], "code": enrollment["code"]}})
        assert finalized.status_code == 200, finalized.text

        first = api.v1("accounts:signInWithPassword", {"email": "mcp-sms@example.com", "password": "secret123",
                                                       "returnSecureToken": True}).json()
        hint = first["mfaInfo"][0]
        signing_in = v2(api, "mfaSignIn:start", {"mfaPendingCredential": first["mfaPendingCredential"],
                                                  "mfaEnrollmentId": hint["mfaEnrollmentId"],
                                                  "phoneSignInInfo": {"phoneNumber": "+15555550150"}})
        assert signing_in.status_code == 200, signing_in.text
        message = await call(session, "latest_sms_code", {"phoneNumber": "+15555550150", "purpose": "MFA_SIGN_IN"})
        assert message["sessionInfo"] == signing_in.json()["phoneResponseInfo"]["sessionInfo"]
        done = v2(api, "mfaSignIn:finalize", {"mfaPendingCredential": first["mfaPendingCredential"],
                                              "phoneVerificationInfo": {"sessionInfo": message["sessionInfo"],
                                                                        "code": message["code"]}})
        assert done.status_code == 200, done.text
        assert done.json()["idToken"]
        return await call(session, "get_user", {"uid": user["localId"]})
    record = with_mcp(api.base, body)
    assert [factor["phoneInfo"] for factor in record["mfaInfo"]] == ["+15555550150"]


def test_user_tools_and_their_errors(api):
    async def body(session):
        created = await call(session, "create_user", {"email": "mcp@example.com", "password": "secret123",
                                                       "displayName": "Agent", "uid": "mcp-uid"})
        assert created == {"localId": "mcp-uid"}
        await call(session, "create_user", {"phoneNumber": "+15555550151", "uid": "mcp-phone"})
        assert (await failure(session, "create_user", {"email": "mcp@example.com"})).startswith("EMAIL_EXISTS : ")
        by_email = await call(session, "get_user", {"email": "MCP@example.com"})
        assert (by_email["localId"], by_email["displayName"], by_email["email"]) == ("mcp-uid", "Agent",
                                                                                      "mcp@example.com")
        assert (await call(session, "get_user", {"phoneNumber": "+15555550151"}))["localId"] == "mcp-phone"
        page = await call(session, "list_users", {"maxResults": 1})
        assert [u["localId"] for u in page["users"]] == ["mcp-phone"] and page["nextPageToken"]
        rest = await call(session, "list_users", {"pageToken": page["nextPageToken"]})
        assert [u["localId"] for u in rest["users"]] == ["mcp-uid"] and "nextPageToken" not in rest
        assert await call(session, "delete_user", {"uid": "mcp-uid"}) == {"deleted": "mcp-uid"}
        assert (await failure(session, "get_user", {"uid": "mcp-uid"})).startswith("USER_NOT_FOUND : ")
        assert (await failure(session, "delete_user", {"uid": "mcp-uid"})).startswith("USER_NOT_FOUND")
        assert await failure(session, "get_user", {"uid": "a", "email": "b@example.com"}) == (
            "INVALID_ARGUMENT : give exactly one of uid, email and phoneNumber")
        assert await failure(session, "delete_user", {}) == "INVALID_ARGUMENT : uid is required"
        assert await failure(session, "list_users", {"maxResults": "ten"}) == (
            "INVALID_ARGUMENT : maxResults must be an integer")
        assert (await failure(session, "list_users", {"limit": 3})).startswith("INVALID_ARGUMENT : unknown argument limit")
        assert (await failure(session, "no_such_tool")) == "UNKNOWN_TOOL : no tool named no_such_tool"
        imported = await call(session, "import_accounts", {
            "users": [{"localId": "seed-1", "email": "seed@example.com",
                       "passwordHash": "fakeHash:salt=s1:password=hunter22", "salt": "s1"}],
            "config": {"signIn": {"allowDuplicateEmails": False}}})
        assert imported == {"importedCount": 1}
        assert (await call(session, "get_user", {"email": "seed@example.com"}))["localId"] == "seed-1"
        assert (await failure(session, "import_accounts", {"users": [{"localId": "x", "email": "bad"}]})).startswith(
            "IMPORT_REFUSED : 1 account(s) refused, first #0: ")
        assert await failure(session, "import_accounts", {"users": "none"}) == (
            "INVALID_ARGUMENT : users must be an array or an object")
        assert await call(session, "reset_project") == {"reset": True}
        return await call(session, "list_users")
    assert with_mcp(api.base, body) == {"users": []}


def test_phone_numbers_totp_links_pushes_and_clock(api):
    user = verified_email_user(api, "mcp-totp@example.com")

    async def body(session):
        assert await call(session, "set_test_phone_numbers", {"numbers": {"+15555550152": "424242"}}) == {
            "testPhoneNumbers": {"+15555550152": "424242"}}
        assert api.v1("accounts:sendVerificationCode", {"phoneNumber": "+15555550152"}).status_code == 200
        assert (await call(session, "latest_sms_code", {"phoneNumber": "+15555550152"}))["code"] == "424242"
        assert (await failure(session, "latest_sms_code", {"phoneNumber": "+15555550153", "waitSeconds": 0})
                ).startswith("NO_SMS_CODE : ")

        await call(session, "set_mfa", {"sms": True, "totp": True, "adjacentIntervals": 1})
        started = v2(api, "mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}})
        secret = started.json()["totpSessionInfo"]["sharedSecretKey"]
        code = (await call(session, "totp_code", {"secret": secret}))["code"]
        assert code == totp(secret)
        finalized = v2(api, "mfaEnrollment:finalize", {"idToken": user["idToken"], "totpVerificationInfo": {
            "sessionInfo": started.json()["totpSessionInfo"]["sessionInfo"], "verificationCode": code}})
        assert finalized.status_code == 200, finalized.text
        assert (await call(session, "totp_code", {"uid": user["localId"]}))["code"] == totp(secret)
        moved = await call(session, "advance_clock", {"seconds": 3600})
        assert abs(time.mktime(time.strptime(moved["now"][:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
                   - (time.time() + 3600)) < 10
        assert (await call(session, "totp_code", {"secret": secret}))["code"] == totp(secret, time.time() + 3600)
        assert (await call(session, "totp_code", {"uid": user["localId"]}))["code"] == totp(secret, time.time() + 3600)
        assert await failure(session, "totp_code", {}) == "INVALID_ARGUMENT : give exactly one of secret and uid"

        assert await call(session, "email_action_links", {"email": "mcp-totp@example.com"}) == {"links": []}
        assert api.v1("accounts:sendOobCode", {"requestType": "PASSWORD_RESET",
                                               "email": "mcp-totp@example.com"}).status_code == 200
        links = (await call(session, "email_action_links", {"email": "mcp-totp@example.com"}))["links"]
        assert [link["requestType"] for link in links] == ["PASSWORD_RESET"]
        assert f"oobCode={links[0]['oobCode']}" in links[0]["oobLink"]
        assert await call(session, "apns_pushes") == {"apnsPushes": []}
        receipt = api.v1("accounts:verifyIosClient", {"appToken": "mcp-device", "isSandbox": True}).json()
        pushes = (await call(session, "apns_pushes"))["apnsPushes"]
        assert [(p["deviceToken"], p["receipt"]) for p in pushes] == [("mcp-device", receipt["receipt"])]
        assert pushes[0]["simctlPayload"]["Simulator Target Bundle"]
        frozen = await call(session, "freeze_clock", {"time": "2030-01-01T00:00:00Z"})
        assert frozen == {"now": "2030-01-01T00:00:00.000Z", "frozen": True}
        assert (await call(session, "advance_clock", {"seconds": 60}))["now"] == "2030-01-01T00:01:00.000Z"
        assert await call(session, "resume_clock") == {"now": "2030-01-01T00:01:00.000Z", "frozen": False}
        assert await failure(session, "freeze_clock", {"time": "soon"}) == (
            "INVALID_ARGUMENT : time must be an RFC 3339 date-time, e.g. 2030-01-01T00:00:00Z")
        await call(session, "reset_project")
        return await call(session, "apns_pushes")
    assert with_mcp(api.base, body) == {"apnsPushes": []}
    assert abs(requests.get(f"{api.base}/emulator/v1/clock").json()["offsetSeconds"]) < 1


def test_an_unreachable_daemon_is_an_error_result_and_the_server_goes_on():
    async def body(session):
        first = await failure(session, "list_users")
        second = await failure(session, "reset_project")
        tools = (await session.list_tools()).tools
        return first, second, len(tools)
    first, second, count = with_mcp(f"http://127.0.0.1:{free_port()}", body)
    assert first.startswith("UNREACHABLE : GET http://127.0.0.1:")
    assert second.startswith("UNREACHABLE : DELETE http://127.0.0.1:")
    assert count == len(TOOLS)
