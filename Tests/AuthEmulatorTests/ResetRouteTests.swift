import AuthEmulator
import Foundation
import Testing

/// One reset (`Emulator.clearScope`): deleting a scope's accounts leaves none of its codes,
/// messages or armed faults for the next test to find; other scopes keep theirs.
@Suite("reset")
struct ResetRouteTests {
    static let emulator = "/emulator/v1/projects/example"

    /// An account, an email action code, an SMS code and an APNs push in one scope.
    static func leaveTraces(_ client: Harness.Client, tenant: String? = nil) async throws {
        var account: [String: JSONValue] = ["email": "reset@example.com", "password": "secret123"]
        if let tenant { account["tenantId"] = .string(tenant) }
        let path = tenant.map { "projects/example/tenants/\($0)/accounts" } ?? "projects/example/accounts"
        try await client.v1(path, account, admin: true).ok()
        var reset: [String: JSONValue] = ["requestType": "PASSWORD_RESET", "email": "reset@example.com"]
        if let tenant { reset["tenantId"] = .string(tenant) }
        try await client.v1("accounts:sendOobCode", reset).ok()
        var phone: [String: JSONValue] = ["phoneNumber": "+15555550101"]
        if let tenant { phone["tenantId"] = .string(tenant) }
        try await client.v1("accounts:sendVerificationCode", phone).ok()
    }

    static func count(_ client: Harness.Client, _ scope: String, _ list: String) async throws -> Int? {
        try await client.call(.get, "\(scope)/\(list)", key: false)[list]?.arrayValue?.count
    }

    static func accounts(_ client: Harness.Client, tenant: String? = nil) async throws -> Int? {
        let path = tenant.map { "projects/example/tenants/\($0)/accounts:query" } ?? "projects/example/accounts:query"
        return Int(try await client.v1(path, ["returnUserInfo": false], admin: true).string("recordsCount"))
    }

    @Test("DELETE …/accounts also clears the scope's email codes, SMS, APNs pushes and faults; a tenant keeps its own")
    func deleteAccountsClearsTraces() async throws {
        try await Harness().run { client in
            let tenant = try await client.call(
                .post, "/identitytoolkit.googleapis.com/v2/projects/example/tenants", #"{"displayName":"t"}"#,
                admin: true
            ).string("tenantId")
            try await Self.leaveTraces(client)
            try await Self.leaveTraces(client, tenant: tenant)
            try await client.v1("accounts:verifyIosClient", ["appToken": "device-1"]).ok()
            try await client.call(
                .post, "\(Self.emulator)/appVerification:failNext", #"{"fault":"APNS_PUSH","count":5}"#, key: false
            ).ok()
            let tenantScope = "\(Self.emulator)/tenants/\(tenant)"
            #expect(try await Self.count(client, Self.emulator, "oobCodes") == 1)
            #expect(try await Self.count(client, Self.emulator, "verificationCodes") == 1)
            #expect(try await Self.count(client, Self.emulator, "apnsPushes") == 1)

            let deleted = try await client.call(.delete, "\(Self.emulator)/accounts", key: false)
            #expect(deleted.status == 200)
            #expect(deleted.json == .object([:]))
            #expect(try await Self.accounts(client) == 0)
            for list in ["oobCodes", "verificationCodes", "smsMessages", "apnsPushes"] {
                #expect(try await Self.count(client, Self.emulator, list) == 0, "\(list)")
            }
            // The fault was disarmed: the next push is sent.
            try await client.v1("accounts:verifyIosClient", ["appToken": "device-2"]).ok()
            #expect(try await Self.count(client, Self.emulator, "apnsPushes") == 1)
            #expect(try await Self.accounts(client, tenant: tenant) == 1)
            #expect(try await Self.count(client, tenantScope, "oobCodes") == 1)
            #expect(try await Self.count(client, tenantScope, "verificationCodes") == 1)

            try await client.call(.delete, "\(tenantScope)/accounts", key: false).ok()
            #expect(try await Self.accounts(client, tenant: tenant) == 0)
            #expect(try await Self.count(client, tenantScope, "oobCodes") == 0)
            #expect(try await Self.count(client, tenantScope, "verificationCodes") == 0)
        }
    }

    @Test("DELETE …/oobCodes and …/verificationCodes clear only those")
    func clearCodesOnly() async throws {
        try await Harness().run { client in
            try await Self.leaveTraces(client)
            let oob = try await client.call(.delete, "\(Self.emulator)/oobCodes", key: false)
            #expect(oob.status == 200)
            #expect(oob.json == .object([:]))
            #expect(try await Self.count(client, Self.emulator, "oobCodes") == 0)
            #expect(try await Self.count(client, Self.emulator, "verificationCodes") == 1)
            let sms = try await client.call(.delete, "\(Self.emulator)/verificationCodes", key: false)
            #expect(sms.status == 200)
            #expect(sms.json == .object([:]))
            #expect(try await Self.count(client, Self.emulator, "verificationCodes") == 0)
            #expect(try await Self.count(client, Self.emulator, "smsMessages") == 0)
            #expect(try await Self.accounts(client) == 1)
        }
    }
}
