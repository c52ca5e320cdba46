"""Game Center sign-in (issue 44): the body the iOS SDK sends to v3 signInWithGameCenter (and v1
accounts:signInWithGameCenter), the answer it reads, linking and unlinking, and a refused signature armed
through appVerification:failNext. Google Play Games sign-in with a fake serverAuthCode."""
import requests

from conftest import PROJECT, error_message, ok
from test_mfa import claims

V1 = "/identitytoolkit.googleapis.com/v1/accounts:signInWithGameCenter"


def credential(team="T:team-1", player="G:player-1", game="A:game-1", name="Ace", **extra):
    """What GameCenterAuthProvider.getCredential() carries, as SignInWithGameCenterRequest encodes it."""
    body = {"playerId": player, "teamPlayerId": team, "gamePlayerId": game,
            "publicKeyUrl": "https://static.gc.apple.com/public-key/gc-prod-10.cer",
            "signature": "AAAABBBBCCCC", "salt": "AAAA", "timestamp": 1700000000123, "displayName": name}
    body.update(extra)
    return body


def test_sign_in_again_and_the_account(api):
    first = api.v3("signInWithGameCenter", credential())
    assert first.status_code == 200, first.text
    body = first.json()
    assert set(body) == {"idToken", "refreshToken", "expiresIn", "localId", "playerId", "teamPlayerId",
                         "gamePlayerId", "displayName", "isNewUser"}
    assert (body["playerId"], body["teamPlayerId"], body["gamePlayerId"]) == ("G:player-1", "T:team-1", "A:game-1")
    assert (body["displayName"], body["isNewUser"], body["expiresIn"]) == ("Ace", True, "3600")
    token = claims(body["idToken"])
    assert token["firebase"]["sign_in_provider"] == "gc.apple.com"
    assert token["firebase"]["identities"] == {"gc.apple.com": ["T:team-1"]}
    again = requests.post(api.base + V1, params={"key": "fake-api-key"}, json=credential())
    assert again.status_code == 200, again.text
    assert (again.json()["localId"], again.json()["isNewUser"]) == (body["localId"], False)
    user = api.v1("accounts:lookup", {"idToken": body["idToken"]}).json()["users"][0]
    assert user["displayName"] == "Ace"
    assert user["providerUserInfo"] == [{"providerId": "gc.apple.com", "rawId": "T:team-1",
                                         "federatedId": "T:team-1", "displayName": "Ace"}]
    # A player without a team id (older Game Kit) is known by the player id.
    legacy = api.v3("signInWithGameCenter", credential(team=None, player="G:legacy"))
    assert legacy.status_code == 200, legacy.text
    assert "teamPlayerId" not in legacy.json() and legacy.json()["isNewUser"] is True


def test_link_and_unlink(api):
    email = ok(api.v1("accounts:signUp", {"email": "gc@example.com", "password": "secret123",
                                           "returnSecureToken": True})).json()
    linked = api.v3("signInWithGameCenter", credential(team="T:link", idToken=email["idToken"]))
    assert linked.status_code == 200, linked.text
    assert (linked.json()["localId"], linked.json()["isNewUser"]) == (email["localId"], False)
    providers = api.v1("accounts:lookup", {"idToken": email["idToken"]}).json()["users"][0]["providerUserInfo"]
    assert sorted(p["providerId"] for p in providers) == ["gc.apple.com", "password"]
    other = ok(api.v1("accounts:signUp", {"email": "gc2@example.com", "password": "secret123"})).json()
    taken = api.v3("signInWithGameCenter", credential(team="T:link", idToken=other["idToken"]))
    assert (taken.status_code, error_message(taken)) == (400, "FEDERATED_USER_ID_ALREADY_LINKED")
    unlinked = api.v1("accounts:update", {"idToken": email["idToken"], "deleteProvider": ["gc.apple.com"]})
    assert unlinked.status_code == 200, unlinked.text
    assert [p["providerId"] for p in unlinked.json()["providerUserInfo"]] == ["password"]
    # Unlinked, the player signs in to an account of its own.
    alone = api.v3("signInWithGameCenter", credential(team="T:link"))
    assert alone.json()["isNewUser"] is True and alone.json()["localId"] != email["localId"]


def test_a_refused_signature_and_bad_requests(api):
    armed = requests.post(f"{api.base}/emulator/v1/projects/{PROJECT}/appVerification:failNext",
                          json={"fault": "GAME_CENTER", "count": 1})
    assert armed.status_code == 200, armed.text
    refused = api.v3("signInWithGameCenter", credential(team="T:fault"))
    assert (refused.status_code, error_message(refused)) == (
        400, "INVALID_IDP_RESPONSE : ((Game Center identity verification signature is invalid))")
    assert api.v3("signInWithGameCenter", credential(team="T:fault")).status_code == 200
    # A fault for one player refuses only that player (by its team, game or legacy id), before the scope's.
    fail_next = f"{api.base}/emulator/v1/projects/{PROJECT}/appVerification:failNext"
    player = requests.post(fail_next, json={"fault": "GAME_CENTER", "count": 2, "playerId": "T:marked"})
    assert (player.status_code, player.json()) == (200, {"fault": "GAME_CENTER", "remaining": 2, "playerId": "T:marked"})
    assert api.v3("signInWithGameCenter", credential(team="T:other")).status_code == 200
    for _ in range(2):
        marked = api.v3("signInWithGameCenter", credential(team="T:marked"))
        assert (marked.status_code, error_message(marked)) == (
            400, "INVALID_IDP_RESPONSE : ((Game Center identity verification signature is invalid))")
    assert api.v3("signInWithGameCenter", credential(team="T:marked")).status_code == 200
    for body, detail in (({"fault": "CREDENTIAL", "playerId": "T:x"}, "playerId goes with GAME_CENTER only"),
                         ({"fault": "GAME_CENTER", "playerId": ""}, "playerId must not be empty")):
        wrong = requests.post(fail_next, json=body)
        assert (wrong.status_code, error_message(wrong)) == (400, f"INVALID_ARGUMENT : {detail}")
    # A reset disarms player faults too.
    ok(requests.post(fail_next, json={"fault": "GAME_CENTER", "playerId": "T:marked"}))
    ok(requests.delete(f"{api.base}/emulator/v1/projects/{PROJECT}/accounts"))
    assert api.v3("signInWithGameCenter", credential(team="T:marked")).status_code == 200
    for change, message in (
        ({"teamPlayerId": None, "playerId": None}, "((playerId or teamPlayerId is required))"),
        ({"signature": ""}, "((signature is required))"),
        ({"salt": None}, "((salt is required))"),
        ({"publicKeyUrl": "http://static.gc.apple.com/key.cer"}, "((publicKeyUrl must be an https URL at apple.com))"),
        ({"publicKeyUrl": "https://evil.example.com/key.cer"}, "((publicKeyUrl must be an https URL at apple.com))"),
        ({"timestamp": None}, "((timestamp is required))"),
    ):
        body = {key: value for key, value in {**credential(), **change}.items() if value is not None}
        answer = api.v3("signInWithGameCenter", body)
        assert (answer.status_code, error_message(answer)) == (400, f"INVALID_IDP_RESPONSE : {message}")
    mistyped = api.v3("signInWithGameCenter", credential(timestamp=[1]))
    assert mistyped.status_code == 400
    assert error_message(mistyped).startswith("Invalid JSON payload received.")


def test_play_games_server_auth_code(api):
    """Google Play Games: signInWithIdp with the app's serverAuthCode (`code`), as the C++/Unity desktop SDK and
    Android send it. The fake code is the player's claims, as a fake id_token is."""
    code = requests.utils.quote('{"sub":"g-player-7","name":"Seven","picture":"https://example.com/7.png"}')
    body = {"requestUri": "http://localhost", "postBody": f"providerId=playgames.google.com&code={code}",
            "returnSecureToken": True, "returnIdpCredential": True}
    signed_in = api.v1("accounts:signInWithIdp", body)
    assert signed_in.status_code == 200, signed_in.text
    answer = signed_in.json()
    assert (answer["providerId"], answer["isNewUser"], answer["displayName"]) == ("playgames.google.com", True, "Seven")
    assert "email" not in answer
    assert claims(answer["idToken"])["firebase"]["sign_in_provider"] == "playgames.google.com"
    user = api.v1("accounts:lookup", {"idToken": answer["idToken"]}).json()["users"][0]
    assert [(p["providerId"], p["rawId"]) for p in user["providerUserInfo"]] == [("playgames.google.com", "g-player-7")]
    again = api.v1("accounts:signInWithIdp", dict(body, postBody="providerId=playgames.google.com&serverAuthCode="
                                                   + code))
    assert again.json()["localId"] == answer["localId"]
    opaque = api.v1("accounts:signInWithIdp", dict(body, postBody="providerId=playgames.google.com&code=4/0AX-real"))
    assert (opaque.status_code, error_message(opaque)) == (400, "INVALID_IDP_RESPONSE : Unable to parse serverAuthCode: "
                                                          "4/0AX-real ((Auth Emulator only accepts strict JSON or "
                                                          "JWTs as fake Play Games codes.))")
