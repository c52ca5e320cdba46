import AuthEmulator
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The tools page: app-verification credentials, the users' download and upload, new tenants.
extension InspectorPages {
    static let credentialKinds = AppCredentialKind.allCases.filter { $0 != .apns }.map(\.rawValue)

    func tools(_ request: Request, _ scope: Scope, extra: [String: Any] = [:], status: HTTPResponse.Status = .ok)
        -> Response
    {
        var values = Self.base(scope, title: "Tools · \(InspectorViews.scopeLabel(scope))")
        values["kinds"] = Self.credentialKinds
        values["isProject"] = scope.tenantId == nil
        values["notice"] = Self.notice(request)
        for (key, value) in extra { values[key] = value }
        return page("tools", values, request: request, status: status)
    }

    func mintCredential(_ request: Request, _ scope: Scope, _ form: [String: String]) async throws -> Response {
        guard let kind = form["kind"].flatMap(AppCredentialKind.init(rawValue:)) else {
            return tools(request, scope, extra: ["error": "Pick a kind of credential."], status: .badRequest)
        }
        let minted = try await emulator.mintAppCredential(kind: kind, valid: form["valid"] == "true", scope: scope)
        let credential: [String: Any] = [
            "token": minted["token"]?.stringValue ?? "", "kind": kind.rawValue, "valid": minted["valid"] == true,
        ]
        return tools(request, scope, extra: ["credential": credential])
    }

    func export(_ scope: Scope) async throws -> Response {
        let accounts = try await emulator.exportAccounts(scope)
        var headers = Self.securityHeaders
        headers[.contentType] = "application/json"
        let name = scope.tenantId.map { "accounts-\($0).json" } ?? "accounts.json"
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        return Response(
            status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: accounts.serialized())))
    }

    func importAccounts(_ request: Request, _ scope: Scope, _ form: [String: String]) async throws -> Response {
        guard let text = form["accounts"], let accounts = try? JSONValue.parse(Data(text.utf8)) else {
            return tools(
                request, scope, extra: ["error": "INVALID_JSON : paste or choose an accounts.json"], status: .badRequest
            )
        }
        do {
            let (imported, refused) = try await emulator.importAccounts(scope, accounts)
            let detail = refused.first.map { "; refused \(refused.count), first: \($0.jsonString())" } ?? ""
            return Self.redirect(
                "\(InspectorViews.scopePath(scope))/tools", notice: "Imported \(imported) user(s)\(detail).")
        } catch let error as AuthError {
            return tools(request, scope, extra: ["error": error.message], status: .badRequest)
        }
    }

    func createTenant(_ request: Request, _ scope: Scope, _ form: [String: String]) async throws -> Response {
        let created = try await emulator.createTenant(
            projectId: scope.projectId, body: .object(["displayName": .string(form["displayName"] ?? "")]))
        let tenant = Scope(projectId: scope.projectId, tenantId: created["tenantId"]?.stringValue)
        return Self.redirect("\(InspectorViews.scopePath(tenant))/users", notice: "Tenant created.")
    }
}
