import AuthEmulator
import Foundation
import Hummingbird

/// The settings page: test phone numbers, and each config section as JSON, saved through the
/// config API's write path (`ScopeConfig`).
extension InspectorPages {
    func config(
        _ request: Request, _ scope: Scope, failed: (section: String, text: String, error: String)? = nil
    ) async throws -> Response {
        var values = Self.base(scope, title: "Settings · \(InspectorViews.scopeLabel(scope))")
        let numbers = try await emulator.testPhoneNumbers(scope)
        values["testNumbers"] = numbers.keys.sorted().map { "\($0) \(numbers[$0]!)" }.joined(separator: "\n")
        values["sections"] = try await emulator.configSections(scope).map { section -> [String: Any] in
            let text = failed?.section == section.key ? failed!.text : section.value.prettyText
            var row: [String: Any] = [
                "key": section.key, "title": section.title, "text": text,
                "rows": min(max(text.split(separator: "\n").count + 1, 3), 24),
            ]
            if failed?.section == section.key { row["error"] = failed?.error }
            return row
        }
        if failed?.section == "testPhoneNumbers" {
            values["testNumbers"] = failed?.text
            values["numbersError"] = failed?.error
        }
        values["notice"] = Self.notice(request)
        return page("config", values, request: request, status: failed == nil ? .ok : .badRequest)
    }

    func saveConfigSection(_ request: Request, _ scope: Scope, _ form: [String: String]) async throws -> Response {
        let key = form["section"] ?? ""
        let text = form["value"] ?? ""
        do {
            guard let value = try? JSONValue.parse(Data(text.utf8)) else {
                throw AuthError("INVALID_JSON", "the text is not JSON")
            }
            try await emulator.updateConfigSection(scope, key: key, value: value)
        } catch let error as AuthError {
            return try await config(request, scope, failed: (key, text, error.message))
        }
        return Self.redirect("\(InspectorViews.scopePath(scope))/config", notice: "Saved \(key).")
    }

    func saveTestPhoneNumbers(_ request: Request, _ scope: Scope, _ form: [String: String]) async throws -> Response {
        let text = form["numbers"] ?? ""
        do {
            var numbers: [String: String] = [:]
            for line in text.split(whereSeparator: \.isNewline) {
                let parts = line.split(whereSeparator: \.isWhitespace)
                if parts.isEmpty { continue }
                guard parts.count == 2 else {
                    throw AuthError("INVALID_CONFIG", "each line needs a number and a code: \(line)")
                }
                numbers[String(parts[0])] = String(parts[1])
            }
            try await emulator.setTestPhoneNumbers(scope, numbers)
        } catch let error as AuthError {
            return try await config(request, scope, failed: ("testPhoneNumbers", text, error.message))
        }
        return Self.redirect("\(InspectorViews.scopePath(scope))/config", notice: "Saved the test phone numbers.")
    }
}
