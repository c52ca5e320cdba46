import AuthEmulator
import Foundation

/// Admin account APIs (`Authorization: Bearer owner`): accounts of any project or tenant, and
/// the v3 batch calls whose project comes from the body's `targetProjectId`.
enum AdminHandlers {
    static func batchDelete(_ request: ApiRequest) async throws -> JSONValue {
        let ids = try LenientDecoder.decode([String].self, from: request.body["localIds"] ?? .array([]))
        return try await request.emulator.batchDelete(
            localIds: ids, force: request.body["force"]?.boolValue ?? false, caller: request.caller)
    }

    static func queryAccounts(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.queryAccounts(request.body, caller: request.caller)
    }

    static func batchGet(_ request: ApiRequest) async throws -> JSONValue {
        let max = request.queryValue("maxResults").map { Int($0) ?? 20 }
        return try await request.emulator.batchGet(
            maxResults: max, nextPageToken: request.queryValue("nextPageToken"), caller: request.caller)
    }

    static func createSessionCookie(_ request: ApiRequest) async throws -> JSONValue {
        try await request.emulator.createSessionCookie(
            idToken: request.body["idToken"]?.stringValue,
            validDuration: try LenientDecoder.decode(String?.self, from: request.body["validDuration"] ?? .null),
            caller: request.caller)
    }

    static func downloadAccount(_ request: ApiRequest) async throws -> JSONValue {
        try Emulator.requireTargetProject(request.body["targetProjectId"] != nil)
        let max = try LenientDecoder.decode(Int?.self, from: request.body["maxResults"] ?? .null)
        return try await request.emulator.batchGet(
            maxResults: max, nextPageToken: request.body["nextPageToken"]?.stringValue, caller: request.caller)
    }

    static func uploadAccount(_ request: ApiRequest) async throws -> JSONValue {
        try Emulator.requireTargetProject(request.body["targetProjectId"] != nil)
        return try await request.emulator.batchCreate(request.decode(BatchCreateRequest.self), caller: request.caller)
    }
}

extension ApiRequest {
    /// Resource bodies (config, tenants, IdP configs) keep their keys as sent.
    var rawBody: JSONValue {
        var body = self.body
        if case .object(var object) = body {
            object["targetProjectId"] = nil
            body = .object(object)
        }
        return body
    }
}
