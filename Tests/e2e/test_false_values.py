"""`false` is a value in recaptchaConfig and passwordPolicyConfig (production and firebase-tools echo it,
and the JS and Admin SDKs' tests expect it); emailPrivacyConfig leaves it out; an OIDC provider's
responseType answers only the types that are on (issue 31, part 1)."""
from conftest import PROJECT

MASK = "recaptchaConfig.useAccountDefender,recaptchaConfig.useSmsBotScore,recaptchaConfig.useSmsTollFraudProtection"
OFF = {"useAccountDefender": False, "useSmsBotScore": False, "useSmsTollFraudProtection": False}


def test_recaptcha_switches_answer_false_on_project_and_tenant(api):
    # On the project, useAccountDefender is left out while email/password enforcement is off, but
    # for the answer to the update that sets it (production).
    config = api.admin("PATCH", f"v2/projects/{PROJECT}/config", {"recaptchaConfig": OFF}, params={"updateMask": MASK})
    assert config.status_code == 200, config.text
    without_defender = {"useSmsBotScore": False, "useSmsTollFraudProtection": False}
    assert config.json()["recaptchaConfig"] == OFF
    assert api.admin("GET", f"v2/projects/{PROJECT}/config").json()["recaptchaConfig"] == without_defender
    tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "t"}).json()["name"].split("/")[-1]
    patched = api.admin("PATCH", f"v2/projects/{PROJECT}/tenants/{tenant}", {"recaptchaConfig": OFF},
                        params={"updateMask": MASK})
    assert (patched.status_code, patched.json()["recaptchaConfig"]) == (200, OFF)


def test_password_policy_requirements_answer_false(api):
    options = {"minPasswordLength": 8, "requireLowercase": False, "requireUppercase": False, "requireNumeric": False,
               "requireNonAlphanumeric": False}
    config = api.admin("PATCH", f"v2/projects/{PROJECT}/config", {
        "passwordPolicyConfig": {"passwordPolicyEnforcementState": "ENFORCE",
                                 "passwordPolicyVersions": [{"customStrengthOptions": options}]},
        "emailPrivacyConfig": {"enableImprovedEmailPrivacy": False}},
        params={"updateMask": "passwordPolicyConfig,emailPrivacyConfig"})
    assert config.status_code == 200, config.text
    assert config.json()["passwordPolicyConfig"]["passwordPolicyVersions"][0]["customStrengthOptions"] == options
    assert config.json()["emailPrivacyConfig"] == {}


def test_oidc_response_type_answers_only_types_that_are_on(api):
    created = api.admin("POST", f"v2/projects/{PROJECT}/oauthIdpConfigs",
                        {"clientId": "c", "issuer": "https://issuer.example.com",
                         "responseType": {"idToken": True, "code": False}},
                        params={"oauthIdpConfigId": "oidc.false-values"})
    assert (created.status_code, created.json()["responseType"]) == (200, {"idToken": True})
    patched = api.admin("PATCH", f"v2/projects/{PROJECT}/oauthIdpConfigs/oidc.false-values",
                        {"responseType": {"idToken": False, "code": True}, "clientSecret": "s"},
                        params={"updateMask": "responseType.idToken,responseType.code"})
    assert (patched.status_code, patched.json()["responseType"]) == (200, {"code": True})
    assert api.admin("DELETE", f"v2/projects/{PROJECT}/oauthIdpConfigs/oidc.false-values").status_code == 200


def test_project_account_defender_answered_only_while_email_enforcement_is_on(api):
    # firebase-admin-node's updateProjectConfig()/getProjectConfig() against production.
    rules = [{"endScore": 0.1, "action": "BLOCK"}]
    audit = api.admin("PATCH", f"v2/projects/{PROJECT}/config",
                      {"recaptchaConfig": {"emailPasswordEnforcementState": "AUDIT", "managedRules": rules,
                                           "useAccountDefender": True}},
                      params={"updateMask": "recaptchaConfig.emailPasswordEnforcementState,"
                                            "recaptchaConfig.managedRules,recaptchaConfig.useAccountDefender"})
    assert audit.status_code == 200, audit.text
    assert audit.json()["recaptchaConfig"] == {"emailPasswordEnforcementState": "AUDIT", "managedRules": rules,
                                               "useAccountDefender": True}
    off = api.admin("PATCH", f"v2/projects/{PROJECT}/config",
                    {"recaptchaConfig": {"emailPasswordEnforcementState": "OFF", "useAccountDefender": False}},
                    params={"updateMask": "recaptchaConfig.emailPasswordEnforcementState,"
                                          "recaptchaConfig.useAccountDefender"})
    assert off.status_code == 200, off.text
    # The update that sets it answers it; reads and other updates leave it out while enforcement is off.
    assert off.json()["recaptchaConfig"] == {"emailPasswordEnforcementState": "OFF", "managedRules": rules,
                                             "useAccountDefender": False}
    assert api.admin("GET", f"v2/projects/{PROJECT}/config").json()["recaptchaConfig"] == {
        "emailPasswordEnforcementState": "OFF", "managedRules": rules}
    other = api.admin("PATCH", f"v2/projects/{PROJECT}/config", {"signIn": {"anonymous": {"enabled": True}}},
                      params={"updateMask": "signIn.anonymous.enabled"})
    assert other.json()["recaptchaConfig"] == {"emailPasswordEnforcementState": "OFF", "managedRules": rules}
    # Kept all along: on again, it answers what was last set.
    on = api.admin("PATCH", f"v2/projects/{PROJECT}/config",
                   {"recaptchaConfig": {"emailPasswordEnforcementState": "ENFORCE"}},
                   params={"updateMask": "recaptchaConfig.emailPasswordEnforcementState"})
    assert on.json()["recaptchaConfig"] == {"emailPasswordEnforcementState": "ENFORCE", "managedRules": rules,
                                            "useAccountDefender": False}
    # A tenant answers it whatever the state, as firebase-tools does (the same suite's emulator branch).
    tenant = api.admin("POST", f"v2/projects/{PROJECT}/tenants", {"displayName": "d"}).json()["name"].split("/")[-1]
    patched = api.admin("PATCH", f"v2/projects/{PROJECT}/tenants/{tenant}",
                        {"recaptchaConfig": {"emailPasswordEnforcementState": "OFF", "useAccountDefender": False}},
                        params={"updateMask": "recaptchaConfig"})
    assert patched.json()["recaptchaConfig"] == {"emailPasswordEnforcementState": "OFF", "useAccountDefender": False}
