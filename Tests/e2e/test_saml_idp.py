"""Identity Platform as a SAML IdP (accounts:issueSamlResponse) and IdP-initiated SAML sign-in: the iOS SDK's
SignInWithSamlIdpRequest body, a SAMLResponse posted without a session (issue 44)."""
import base64
import json
import urllib.parse
import xml.etree.ElementTree as ElementTree

import requests

from conftest import PROJECT, error_message, ok

SAML = "{urn:oasis:names:tc:SAML:2.0:assertion}"
SAMLP = "{urn:oasis:names:tc:SAML:2.0:protocol}"
PARTNER_ACS = "https://partner.example/acs"


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def partner_provider(api, provider_id="saml.partner"):
    ok(api.admin("POST", f"v2/projects/{PROJECT}/inboundSamlConfigs", {
        "idpConfig": {"idpEntityId": "urn:idp", "ssoUrl": "https://idp.example/sso"},
        "spConfig": {"spEntityId": "urn:partner", "callbackUri": PARTNER_ACS}}, params={"inboundSamlConfigId": provider_id}))


def ios_saml_sign_in(api, saml_response, provider_id="saml.partner", encode=True):
    """Exactly what the iOS SDK's SignInWithSamlIdpRequest sends."""
    value = urllib.parse.quote(saml_response, safe="") if encode else saml_response
    return api.v1("accounts:signInWithIdp", {"requestUri": PARTNER_ACS,
                                             "postBody": f"SAMLResponse={value}&providerId={provider_id}",
                                             "returnSecureToken": True})


def test_issue_saml_response_for_a_partner_and_sign_in_there(api):
    partner_provider(api)
    user = ok(api.v1("accounts:signUp", {"email": "ada@example.com", "password": "secret123",
                                         "displayName": "Ada Lovelace King"})).json()
    issued = api.v1("accounts:issueSamlResponse",
                    {"rpId": "urn:partner", "idToken": user["idToken"], "samlAppEntityId": "urn:app&co"})
    assert issued.status_code == 200, issued.text
    answer = issued.json()
    assert sorted(answer) == ["acsEndpoint", "email", "firstName", "isNewUser", "lastName", "relayState",
                              "samlResponse"]
    assert (answer["acsEndpoint"], answer["email"], answer["firstName"], answer["lastName"], answer["isNewUser"]) == \
        (PARTNER_ACS, "ada@example.com", "Ada", "Lovelace King", False)

    document = ElementTree.fromstring(base64.b64decode(answer["samlResponse"]))
    assert document.tag == f"{SAMLP}Response"
    assert document.get("Destination") == PARTNER_ACS
    assert document.find(f"{SAMLP}Status/{SAMLP}StatusCode").get("Value") == \
        "urn:oasis:names:tc:SAML:2.0:status:Success"
    assertion = document.find(f"{SAML}Assertion")
    assert assertion.find(f"{SAML}Issuer").text == f"https://securetoken.google.com/{PROJECT}"
    name_id = assertion.find(f"{SAML}Subject/{SAML}NameID")
    assert (name_id.text, name_id.get("Format")) == \
        ("ada@example.com", "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress")
    assert assertion.find(f"{SAML}Conditions/{SAML}AudienceRestriction/{SAML}Audience").text == "urn:partner"
    attributes = {a.get("Name"): a.find(f"{SAML}AttributeValue").text
                  for a in assertion.iter(f"{SAML}Attribute")}
    assert attributes == {"email": "ada@example.com", "firstName": "Ada", "lastName": "Lovelace King"}

    assert answer["relayState"].startswith("SAMLRequest=")
    request = ElementTree.fromstring(base64.b64decode(urllib.parse.unquote(answer["relayState"][len("SAMLRequest="):])))
    assert (request.tag, request.find(f"{SAML}Issuer").text) == (f"{SAMLP}AuthnRequest", "urn:app&co")

    # The partner is a SAML provider of this project: the response signs in there, IdP-initiated.
    signed_in = ios_saml_sign_in(api, answer["samlResponse"])
    assert signed_in.status_code == 200, signed_in.text
    body = signed_in.json()
    assert (body["providerId"], body["email"], body["federatedId"], body["emailVerified"]) == \
        ("saml.partner", "ada@example.com", "ada@example.com", True)
    assert "isNewUser" not in body  # production leaves out a false isNewUser
    assert body["localId"] == user["localId"]  # one account per email: the address's account
    assert body["expiresIn"] == "3600" and body["refreshToken"]
    token = claims(body["idToken"])
    assert token["firebase"]["sign_in_provider"] == "saml.partner"
    assert token["firebase"]["sign_in_attributes"] == attributes
    assert json.loads(body["rawUserInfo"]) == attributes


def test_issue_saml_response_defaults_and_errors(api):
    user = ok(api.v1("accounts:signUp", {"returnSecureToken": True})).json()  # anonymous: no email, no name
    issued = ok(api.v1("accounts:issueSamlResponse", {"rpId": "urn:unknown", "idToken": user["idToken"]})).json()
    assert {k: v for k, v in issued.items() if k != "samlResponse"} == {
        "acsEndpoint": f"https://{PROJECT}.firebaseapp.com/__/auth/handler", "isNewUser": False}
    name_id = ElementTree.fromstring(base64.b64decode(issued["samlResponse"])).find(
        f"{SAML}Assertion/{SAML}Subject/{SAML}NameID")
    assert (name_id.text, name_id.get("Format")) == \
        (user["localId"], "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified")

    def error(body, key=True):
        answer = api.v1("accounts:issueSamlResponse", body, key=key)
        return answer.status_code, error_message(answer)

    assert error({"rpId": "urn:partner"}) == (400, "MISSING_ID_TOKEN")
    assert error({"idToken": user["idToken"]}) == (400, "MISSING_RP_ID")
    assert error({"rpId": "urn:partner", "idToken": "not-a-token"}) == (400, "INVALID_ID_TOKEN")
    assert error({"rpId": "urn:partner", "idToken": user["idToken"]}, key=False) == \
        (403, "The request is missing a valid API key.")
    ok(api.admin("POST", f"v1/projects/{PROJECT}/accounts:delete", {"localId": user["localId"]}))
    assert error({"rpId": "urn:partner", "idToken": user["idToken"]}) == (400, "USER_NOT_FOUND")


def test_idp_initiated_sign_in_takes_json_base64_and_xml_responses(api):
    as_json = json.dumps({"assertion": {"subject": {"nameId": "grace@example.com"},
                                        "attributeStatements": {"dept": "navy"}}})
    first = ios_saml_sign_in(api, base64.b64encode(as_json.encode()).decode(), provider_id="saml.idp")
    assert first.status_code == 200, first.text
    assert (first.json()["isNewUser"], first.json()["email"], first.json()["providerId"]) == \
        (True, "grace@example.com", "saml.idp")
    # An IdP's own document: wrapped lines, several values, escapes, and '+' left unencoded in the form.
    xml = ('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" '
           'xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"><saml:Assertion><saml:Subject>'
           '<saml:NameID>grace@example.com</saml:NameID></saml:Subject><saml:AttributeStatement>'
           '<saml:Attribute Name="groups"><saml:AttributeValue>a&amp;b</saml:AttributeValue>'
           '<saml:AttributeValue>c???</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>'
           '</saml:Assertion></samlp:Response>')
    wrapped = base64.encodebytes(xml.encode()).decode()
    assert "+" in wrapped and "\n" in wrapped
    again = ios_saml_sign_in(api, wrapped.replace("\n", "%0A"), provider_id="saml.idp", encode=False)
    assert again.status_code == 200, again.text
    assert ("isNewUser" in again.json(), again.json()["localId"]) == (False, first.json()["localId"])
    assert claims(again.json()["idToken"])["firebase"]["sign_in_attributes"] == {"groups": ["a&b", "c???"]}

    for bad, detail in [("bm90IHNhbWw=", "SAMLResponse is neither JSON nor a base64-encoded SAML response."),
                        (base64.b64encode(b"<Response/>").decode(), "Missing assertion.subject.nameId in SAMLResponse."),
                        ("%%%", "SAMLResponse is neither JSON nor a base64-encoded SAML response.")]:
        refused = ios_saml_sign_in(api, bad, provider_id="saml.idp")
        assert (refused.status_code, error_message(refused)) == (400, f"INVALID_IDP_RESPONSE (({detail}))")
    # Not a SAML provider: the assertion alone is no credential.
    other = ios_saml_sign_in(api, base64.b64encode(as_json.encode()).decode(), provider_id="oidc.idp")
    assert other.status_code == 501
    unkeyed = requests.post(f"{api.base}/identitytoolkit.googleapis.com/v1/accounts:issueSamlResponse", json={})
    assert unkeyed.status_code == 403
