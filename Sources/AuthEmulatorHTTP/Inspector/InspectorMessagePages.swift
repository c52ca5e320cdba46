import AuthEmulator
import Foundation
import HTTPTypes
import Hummingbird

/// The messages page (SMS outbox, email links, APNs pushes) and the login form.
extension InspectorPages {
    func messages(_ request: Request, _ scope: Scope) async throws -> Response {
        let parameters = request.uri.queryParameters
        let phone = parameters.get("phoneNumber") ?? ""
        let email = parameters.get("email") ?? ""
        let purpose = parameters.get("purpose").flatMap(SmsPurpose.init(rawValue:))
        let status = parameters.get("status").flatMap(SmsStatus.init(rawValue:))
        let query = SmsQuery(
            phoneNumber: phone.isEmpty ? nil : phone, purpose: purpose, statuses: status.map { [$0] })
        let sms = try await emulator.smsMessages(scope, query, wait: 0)
        let pushes = try await emulator.apnsPushes(scope, afterId: nil, limit: nil, wait: 0)
        var values = Self.base(scope, title: "Messages · \(InspectorViews.scopeLabel(scope))")
        values["sms"] = sms.reversed().map(InspectorViews.smsRow)
        values["lastSmsId"] = String(sms.last?.id ?? 0)
        values["smsFilter"] = InspectorViews.query([
            ("phoneNumber", phone), ("purpose", purpose?.rawValue ?? ""), ("status", status?.rawValue ?? ""),
        ])
        values["oob"] = InspectorViews.oobRows(
            try await emulator.listOobCodes(scope), email: email.isEmpty ? nil : email)
        values["oobEmail"] = email
        values["pushes"] = pushes.reversed().map(InspectorViews.pushRow)
        values["lastPushId"] = String(pushes.last?.id ?? 0)
        values["filters"] = ["phoneNumber": phone, "email": email]
        values["purposes"] = Self.options(SmsPurpose.allCases.map(\.rawValue), selected: purpose?.rawValue)
        values["statuses"] = Self.options(
            ["PENDING", "USED", "EXPIRED", "SUPERSEDED", "LOCKED"], selected: status?.rawValue)
        values["notice"] = Self.notice(request)
        return page("messages", values, request: request)
    }

    static func options(_ values: [String], selected: String?) -> [[String: Any]] {
        [["value": "", "label": "any", "selected": selected == nil]]
            + values.map {
                [
                    "value": $0, "label": $0.lowercased().replacingOccurrences(of: "_", with: " "),
                    "selected": $0 == selected,
                ]
            }
    }

    func loginPage(_ request: Request, next: String?, error: String? = nil) -> Response {
        page(
            "login", ["title": "Sign in", "next": Self.safeNext(next), "error": error as Any], request: request,
            status: error == nil ? .ok : .forbidden)
    }

    /// The admin token, checked; then a session (an HttpOnly, SameSite=Strict cookie holding a value
    /// the daemon issued, not the token) and back to the page.
    func login(_ request: Request) async throws -> Response {
        let form = try await Self.form(request, limit: maxBodyBytes)
        guard InspectorAccess.csrfValid(request, form: form) else {
            return loginPage(request, next: form["next"], error: "This form has expired: try again.")
        }
        guard let token = form["token"], ConstantTime.equal(token, access.adminToken) else {
            return loginPage(request, next: form["next"], error: "That is not the admin token.")
        }
        var response = Self.redirect(Self.safeNext(form["next"]))
        response.headers[.setCookie] = InspectorAccess.setCookie(InspectorAccess.sessionCookie, access.session())
        return response
    }

    /// Only the inspector's own pages are places to go back to.
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/emulator/ui/"), !next.contains("//"), !next.contains("\\") else {
            return "/emulator/ui/"
        }
        return next
    }
}
