import Foundation
import Testing

@testable import AuthEmulator

@Suite("Wire formats: JSON text and refresh tokens")
struct WireFormatTests {
    @Test("JSON text: sorted keys, escapes, integral and fractional numbers, no NaN")
    func serialized() throws {
        let value: JSONValue = .object([
            "b": .array([.number(1), .number(-2.5), .number(1_700_000_000_123), .number(.nan), .null, .bool(false)]),
            "a": .string("quote \" backslash \\ slash / newline \n tab \t bell \u{07} é 🙂"),
        ])
        let text = String(decoding: value.serialized(), as: UTF8.self)
        #expect(
            text
                == #"{"a":"quote \" backslash \\ slash / newline \n tab \t bell \u0007 é 🙂","b":[1,-2.5,1700000000123,null,null,false]}"#
        )
        // What the writer produces, a JSON parser reads back as the same value (NaN aside).
        let roundTrip: JSONValue = .object(["x": .array([.number(0.1), .string("\u{0}\u{1f}\r"), .object([:])])])
        #expect(try JSONValue.parse(Data(roundTrip.serialized())) == roundTrip)
    }

    @Test("JSON strings: every byte needing an escape is found at every position, none invented")
    func escapesAtEveryPosition() throws {
        // The writer tests eight bytes at a time; sweep each special byte over both word halves
        // and the tail, next to bytes that sit just beside the special values.
        let neighbours = ["!", "#", "[", "]", "~", " ", "é", "\u{7f}"]
        for special in ["\"", "\\", "\u{0}", "\u{1f}", "\n"] {
            for length in 1...19 {
                for position in 0..<length {
                    let filler = neighbours[(length + position) % neighbours.count]
                    var characters = Array(repeating: filler, count: length)
                    characters[position] = special
                    let string = characters.joined()
                    let text = JSONValue.string(string).serialized()
                    #expect(try JSONValue.parse(Data(text)) == .string(string), "\(length) \(position)")
                    #expect(text.count > string.utf8.count + 2, "escape missed at \(position) of \(length)")
                }
            }
        }
        for length in 0...19 {
            let plain = String(repeating: "a~ é!#]", count: 3).prefix(length)
            #expect(JSONValue.string(String(plain)).serialized() == Array("\"\(plain)\"".utf8))
        }
    }

    @Test("MFA pending credentials: round trip with and without tenant; sealed; edited or forged ones refused")
    func pendingCredentials() throws {
        let seal = TokenSeal()
        for tenant in ["t-1", nil] {
            let credential = MfaPendingCredential(
                localId: "u1", signInProvider: "password", projectId: "p", tenantId: tenant, expiresAt: 1_800_000_000)
            let text = credential.encoded(sealedBy: seal)
            let bytes = try #require(Data(base64Encoded: text))
            let json = try JSONValue.parse(bytes)
            #expect(json["localId"] == "u1" && json["projectId"] == "p" && json["expiresAt"] == .number(1_800_000_000))
            #expect(json["seal"]?.stringValue?.count == 43)
            let decoded = try #require(MfaPendingCredential.open(text, seal: seal))
            #expect(decoded.localId == "u1" && decoded.tenantId == tenant && decoded.expiresAt == 1_800_000_000)
            #expect(decoded.signInProvider == "password" && decoded.projectId == "p")
            #expect(MfaPendingCredential.open(text, seal: TokenSeal()) == nil)  // another daemon's secret
            guard case .object(var object) = json else { return }
            object["localId"] = "victim"
            #expect(
                MfaPendingCredential.open(Data(JSONValue.object(object).serialized()).base64EncodedString(), seal: seal)
                    == nil)
            object["seal"] = nil
            #expect(
                MfaPendingCredential.open(Data(JSONValue.object(object).serialized()).base64EncodedString(), seal: seal)
                    == nil)
        }
        #expect(MfaPendingCredential.open("not base64 at all", seal: seal) == nil)
        // The nonce is sealed with the rest: two credentials of one user and second differ.
        let once = MfaPendingCredential(
            localId: "u1", signInProvider: "password", projectId: "p", expiresAt: 1_800_000_000, nonce: "n1")
        #expect(MfaPendingCredential.open(once.encoded(sealedBy: seal), seal: seal)?.nonce == "n1")
        var twice = once
        twice.nonce = "n2"
        #expect(twice.encoded(sealedBy: seal) != once.encoded(sealedBy: seal))
        let edited = try JSONValue.parse(Data(base64Encoded: once.encoded(sealedBy: seal))!)
        guard case .object(var object) = edited else { return }
        object["nonce"] = "n2"
        #expect(
            MfaPendingCredential.open(Data(JSONValue.object(object).serialized()).base64EncodedString(), seal: seal)
                == nil)
    }

    @Test("base64url made standard and padded; an ID token's tenant claim read, again from memory")
    func base64AndTenantPeek() throws {
        #expect(Base64.padded("") == "")
        #expect(Base64.padded("-_ab") == "+/ab")
        #expect(Base64.padded("YQ") == "YQ==")
        #expect(Base64.padded("YWI") == "YWI=")
        #expect(Data(base64Encoded: Base64.padded("_-8")) == Data([0xFF, 0xEF]))
        let tenantPayload = Base64.url(Data(#"{"firebase":{"tenant":"t-9"}}"#.utf8))
        for _ in 0..<2 { #expect(try TokenService.peekTenant("h.\(tenantPayload).s") == "t-9") }
        let plainPayload = Base64.url(Data(#"{"sub":"u","firebase":{}}"#.utf8))
        for _ in 0..<2 { #expect(try TokenService.peekTenant("h.\(plainPayload).s") == nil) }
        #expect(try TokenService.peekTenant("no dots") == nil)
    }

    @Test("phone numbers: + and 7 to 15 ASCII digits, nothing else")
    func phoneNumbers() {
        for valid in ["+1555555", "+155555501001234", "+15555550100"] {
            #expect(Validation.isPhoneNumber(valid), "\(valid)")
        }
        for invalid in [
            "", "+", "15555550100", "+155555", "+1555555010012345", "+1555 555", "+1555555٣", "+1555555a", "++1555555",
        ] {
            #expect(!Validation.isPhoneNumber(invalid), "\(invalid)")
        }
    }

    @Test("form bodies: + and %XX decoded, stray % kept, bare keys and \"=\" pairs, last key wins")
    func formFields() {
        #expect(
            FormEncoding.fields("a=1&b=x+y%20z&=&c&d=%zz%4&e=%E2%82%AC&a=2&grant_type=refresh_token")
                == ["a": "2", "b": "x y z", "": "", "c": "", "d": "%zz%4", "e": "€", "grant_type": "refresh_token"])
        #expect(FormEncoding.fields("") == [:])
        #expect(FormEncoding.fields("k=%FF") == ["k": "\u{FFFD}"])
    }

    /// Fails for any optional stored property left nil: the stored-form tests need every field set
    /// so that one missing from a hand-written form shows up.
    private func expectEveryOptionalSet(_ values: [Any]) {
        for value in values {
            for child in Mirror(reflecting: value).children {
                let mirror = Mirror(reflecting: child.value)
                #expect(!(mirror.displayStyle == .optional && mirror.children.isEmpty), "\(child.label ?? "?") unset")
            }
        }
    }

    /// A user with every field set, and in each nested type every field too.
    static var everyFieldUser: UserRecord {
        var user = UserRecord(localId: "u1")
        user.email = "a@b.c"
        user.emailVerified = true
        user.displayName = "A \"B\""
        user.photoUrl = "https://p/x.png"
        user.screenName = "ab"
        user.phoneNumber = "+15555550100"
        user.passwordHash = "hash"
        user.salt = "salt"
        user.passwordUpdatedAt = 1_700_000_000_123.5
        user.providerUserInfo = [
            ProviderUserInfo(
                providerId: "google.com", rawId: "r", federatedId: "f", email: "e", displayName: "d", photoUrl: "p",
                phoneNumber: "+1", screenName: "s")
        ]
        var factor = MfaEnrollment(
            mfaEnrollmentId: "m1", displayName: "phone", enrolledAt: "2026-01-01T00:00:00.000Z",
            phoneInfo: "+15555550101", totpInfo: .object([:]), totpSecret: "SECRET")
        factor.totpLastUsedStep = 58_000_000
        user.mfaInfo = [factor]
        user.customAttributes = #"{"role":"admin"}"#
        user.disabled = false
        user.createdAt = "1700000000000"
        user.lastLoginAt = "1700000000001"
        user.lastRefreshAt = "2026-01-01T00:00:00.000Z"
        user.validSince = "1700000000"
        user.tenantId = "t-1"
        user.customAuth = true
        user.initialEmail = "first@b.c"
        user.emailLinkSignin = true
        user.passkeyInfo = [PasskeyInfo(credentialId: "c1", name: "key")]
        user.importedPasswordHash = ImportedPasswordHash(
            algorithm: "SCRYPT", signerKey: Data([1, 2]), saltSeparator: Data([7]), rounds: 8, memoryCost: 14,
            cpuMemCost: 1024, parallelization: 16, blockSize: 8, dkLen: 64, passwordHashOrder: "SALT_AND_PASSWORD")
        var attempts = SignInAttempts()
        attempts.passwordFailures = 3
        attempts.passwordLastFailureAt = 1_700_000_000.5
        attempts.passwordLockedUntil = 1_700_000_900.5
        attempts.factors = ["m1": CodeFailures(count: 2, until: 1_700_000_900)]
        attempts.pendingCredentials = ["0a1b": CodeFailures(count: 1, until: 1_700_000_600)]
        user.signInAttempts = attempts
        return user
    }

    @Test("stored users: exactly JSONEncoder's form of the record, every field set; decodes back equal")
    func storedUser() throws {
        let user = Self.everyFieldUser
        let factor = user.mfaInfo![0]
        // Every optional is set, in the record and in each nested type: a field added to one of
        // them without `storedValue` would be missing below and fail this test.
        expectEveryOptionalSet([
            user, user.providerUserInfo![0], factor, user.passkeyInfo![0], user.importedPasswordHash!,
            user.signInAttempts!, user.signInAttempts!.factors!["m1"]!,
        ])
        #expect(user.storedValue == (try JSONValue.from(user)))
        #expect(try JSONDecoder().decode(UserRecord.self, from: user.storedData) == user)
        #expect(UserRecord(localId: "bare").storedValue == .object(["localId": "bare"]))
        // Lockout counters pass: stored, never exported.
        #expect(user.storedValue["signInAttempts"] != nil && user.exportValue["signInAttempts"] == nil)
        // The stored text is `storedValue`'s, keys sorted, with every field set or none.
        for record in [user, UserRecord(localId: "bare")] {
            #expect(Array(record.storedData) == record.storedValue.serialized())
        }
    }

    @Test("wire users: lookup and download forms of every field, written text the same as the value's")
    func wireUser() throws {
        let user = Self.everyFieldUser
        let common: [String: JSONValue] = [
            "createdAt": "1700000000000", "customAttributes": #"{"role":"admin"}"#, "customAuth": true,
            "disabled": false, "displayName": "A \"B\"", "email": "a@b.c", "emailLinkSignin": true,
            "emailVerified": true, "initialEmail": "first@b.c", "lastLoginAt": "1700000000001",
            "lastRefreshAt": "2026-01-01T00:00:00.000Z", "localId": "u1",
            "passkeyInfo": [["credentialId": "c1", "name": "key"]], "passwordUpdatedAt": .number(1_700_000_000_123.5),
            "phoneNumber": "+15555550100", "photoUrl": "https://p/x.png",
            "providerUserInfo": [
                [
                    "providerId": "google.com", "rawId": "r", "federatedId": "f", "email": "e", "displayName": "d",
                    "photoUrl": "p", "phoneNumber": "+1", "screenName": "s",
                ]
            ],
            "screenName": "ab", "tenantId": "t-1", "validSince": "1700000000",
        ]
        let factor: [String: JSONValue] = [
            "mfaEnrollmentId": "m1", "displayName": "phone", "enrolledAt": "2026-01-01T00:00:00.000Z",
            "phoneInfo": "+15555550101", "unobfuscatedPhoneInfo": "+15555550101", "totpInfo": [:],
        ]
        var lookup = common
        lookup["passwordHash"] = "UkVEQUNURUQ="
        lookup["mfaInfo"] = [.object(factor)]
        #expect(user.wireValue == .object(lookup))
        var download = common
        (download["passwordHash"], download["salt"]) = ("hash", "salt")
        download["mfaInfo"] = [.object(factor.merging(["emulatorTotpSecret": "SECRET"]) { $1 })]
        download["emulatorPasswordHash"] = [
            "algorithm": "SCRYPT", "signerKey": "AQI=", "saltSeparator": "Bw==", "rounds": 8, "memoryCost": 14,
            "cpuMemCost": 1024, "parallelization": 16, "blockSize": 8, "dkLen": 64,
            "passwordHashOrder": "SALT_AND_PASSWORD",
        ]
        #expect(user.wireValue(forDownload: true) == .object(download))
        // A bare user still shows `emailVerified`; an empty passkey list is left out.
        var bare = UserRecord(localId: "bare")
        bare.passkeyInfo = []
        #expect(bare.wireValue == .object(["localId": "bare", "emailVerified": false]))
        // The written text is the value's, keys sorted, whichever members are inserted where.
        for record in [user, bare] {
            for forDownload in [false, true] {
                #expect(
                    Array(record.wireData(forDownload: forDownload))
                        == record.wireValue(forDownload: forDownload).serialized())
            }
        }
    }

    @Test("lookup bodies: strings and lists of strings read straight, as the decoder reads them; others decoded")
    func lookupBodies() throws {
        let bodies: [JSONValue] = [
            ["idToken": "t"], ["localId": "u1"], ["localId": ["u1", "u2"], "email": ["a@b.c"]],
            ["phoneNumber": "+1555", "initialEmail": [], "targetProjectId": "p", "returnSecureToken": true],
        ]
        for body in bodies {
            let direct = try #require(LookupRequest(commonShape: body))
            let decoded = try LenientDecoder.decode(LookupRequest.self, from: body)
            #expect(direct.idToken == decoded.idToken && direct.localId == decoded.localId)
            #expect(direct.email == decoded.email && direct.phoneNumber == decoded.phoneNumber)
            #expect(direct.initialEmail == decoded.initialEmail && decoded.federatedUserId == nil)
        }
        // Numbers, nulls, mixed lists and federated ids are not read straight.
        let others: [JSONValue] = [
            ["localId": 12], ["email": .null], ["localId": ["u1", 2]], ["idToken": 5],
            ["federatedUserId": [["providerId": "google.com", "rawId": "r"]]], .array([]),
        ]
        for body in others { #expect(LookupRequest(commonShape: body) == nil) }
        // …and the decoder takes them as before: a number as a string, a null list refused.
        #expect(try LenientDecoder.decode(LookupRequest.self, from: ["localId": 12]).localId == ["12"])
        #expect(throws: AuthError.invalidJSON("/email must be array")) {
            try LenientDecoder.decode(LookupRequest.self, from: ["email": .null])
        }
    }

    @Test("stored SMS: exactly JSONEncoder's form, every field set or none; both forms read back equal")
    func storedSms() throws {
        let full = SmsMessage(
            id: 42, projectId: "p", tenantId: "t", phoneNumber: "+15555550100", code: "123456", text: "123456 is…",
            purpose: .mfaSignIn, usedFor: .reauth, sessionInfo: "s-1",
            sentAt: Date(timeIntervalSinceReferenceDate: 800_000_000.125),
            expiresAt: Date(timeIntervalSinceReferenceDate: 800_000_300.5), status: .superseded, testNumber: true,
            attempts: 3, verificationPath: "apns", localId: "u1", mfaEnrollmentId: "m1", clientIP: "10.0.0.1")
        expectEveryOptionalSet([full])
        var bare = full
        (bare.tenantId, bare.usedFor, bare.localId, bare.mfaEnrollmentId, bare.clientIP) = (nil, nil, nil, nil, nil)
        for message in [full, bare] {
            let stored = try JSONValue.parse(message.storedData)
            #expect(stored == (try JSONValue.from(message)))
            #expect(Array(message.storedData) == stored.serialized())  // keys sorted, as `serialized()`
            // Rows written by JSONEncoder (before) and by storedData (now) both read back.
            #expect(try SmsMessage(stored: JSONValue.parse(JSONEncoder().encode(message))) == message)
            #expect(try SmsMessage(stored: stored) == message)
            #expect(try JSONDecoder().decode(SmsMessage.self, from: message.storedData) == message)
        }
        #expect(throws: AuthError.self) { try SmsMessage(stored: .object(["id": 1])) }
    }

    @Test("RFC 3339 times carry milliseconds and Z, as the SDKs parse them")
    func rfc3339() {
        #expect(Date(timeIntervalSince1970: 1_659_378_675.426).rfc3339Millis == "2022-08-01T18:31:15.426Z")
        #expect(Date(timeIntervalSince1970: 0).rfc3339Millis == "1970-01-01T00:00:00.000Z")
        #expect(Date(timeIntervalSince1970: 4_102_444_799.999).rfc3339Millis == "2099-12-31T23:59:59.999Z")
    }

    @Test("refresh tokens: round trip with tenant and second factor; base64url accepted; edits and forgeries refused")
    func refreshTokens() throws {
        let seal = TokenSeal()
        let token = RefreshToken(
            localId: "u1", provider: "password",
            extraClaims: ["role": "admin", "n": .number(0.1), "big": .number(1e21)],
            scope: Scope(projectId: "p", tenantId: "t-1"),
            secondFactor: SecondFactorClaim(identifier: "e1", provider: "totp"), issuedAt: 1_700_000_000)
        let encoded = token.encoded(sealedBy: seal)
        #expect(try RefreshToken.open(encoded, seal: seal) == token)
        let urlSafe = encoded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        #expect(try RefreshToken.open(urlSafe, seal: seal) == token)
        let plain = RefreshToken(localId: "u2", provider: "anonymous", scope: Scope(projectId: "p"), issuedAt: 5)
        #expect(try RefreshToken.open(plain.encoded(sealedBy: seal), seal: seal) == plain)
        let json = String(decoding: Data(base64Encoded: encoded)!, as: UTF8.self)
        #expect(json.hasPrefix(#"{"_AuthEmulatorRefreshToken":"DO NOT MODIFY","extraClaims":{"#))
        let parsed = try JSONValue.parse(Data(json.utf8))
        guard case .object(let members) = parsed else { return }
        func edited(_ change: (inout [String: JSONValue]) -> Void) -> String {
            var object = members
            change(&object)
            return Data(JSONValue.object(object).serialized()).base64EncodedString()
        }
        for bad in [
            "x", Data(#"{"localId":"u1"}"#.utf8).base64EncodedString(),
            Data(json.replacingOccurrences(of: "DO NOT MODIFY", with: "MODIFIED").utf8).base64EncodedString(),
            edited { $0["extraClaims"] = ["role": "admin", "admin": true] }, edited { $0["localId"] = "victim" },
            edited { $0["seal"] = nil }, edited { $0["tenantId"] = nil }, edited { $0["issuedAt"] = .number(1e300) },
            plain.encoded(sealedBy: TokenSeal()),
        ] {
            #expect(throws: AuthError.invalidRefreshToken) { try RefreshToken.open(bad, seal: seal) }
        }
    }

    @Test("phone numbers map to libphonenumber's regions, shared calling codes by area prefix")
    func phoneRegions() {
        let expected: [String: String?] = [
            "+16505550100": "US", "+12425550123": "BS", "+14165550123": "CA", "+17875550123": "PR",
            "+18095550123": "DO", "+442079460000": "GB", "+441534123456": "JE", "+447624123456": "IM",
            "+79161234567": "RU", "+77012345678": "KZ", "+390669812345": "VA", "+390612345678": "IT",
            "+819012345678": "JP", "+4915112345678": "DE", "+33612345678": "FR", "+61891621234": "CC",
            "+61412345678": "AU", "+5511912345678": "BR", "+8613812345678": "CN", "+99912345": nil,
        ]
        for (phone, region) in expected {
            #expect(SmsRegionPolicy.region(of: phone) == region, "\(phone)")
        }
    }

}

/// Arrays and objects written as literals in these tests' expected values.
extension JSONValue: ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(uniqueKeysWithValues: elements))
    }
}
