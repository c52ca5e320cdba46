import Foundation

extension SmsMessage {
    /// The record as stored: the keys and values `JSONEncoder` writes for this type (dates as
    /// seconds since 2001, absent optionals left out), written field by field in sorted key order,
    /// the text `serialized()` gives. `JSONEncoder` and `JSONDecoder` were a quarter of a phone
    /// sign-in, and building a dictionary and sorting it was still a tenth. A test checks both
    /// directions against them, and the order.
    public var storedData: Data {
        var object = SortedJSONObject(capacity: 512)
        object.member("attempts", .number(Double(attempts)))
        object.member("clientIP", clientIP.map(JSONValue.string))
        object.member("code", .string(code))
        object.member("expiresAt", .number(expiresAt.timeIntervalSinceReferenceDate))
        object.member("id", .number(Double(id)))
        object.member("localId", localId.map(JSONValue.string))
        object.member("mfaEnrollmentId", mfaEnrollmentId.map(JSONValue.string))
        object.member("phoneNumber", .string(phoneNumber))
        object.member("projectId", .string(projectId))
        object.member("purpose", .string(purpose.rawValue))
        object.member("sentAt", .number(sentAt.timeIntervalSinceReferenceDate))
        object.member("sessionInfo", .string(sessionInfo))
        object.member("status", .string(status.rawValue))
        object.member("tenantId", tenantId.map(JSONValue.string))
        object.member("testNumber", .bool(testNumber))
        object.member("text", .string(text))
        object.member("usedFor", usedFor.map { .string($0.rawValue) })
        object.member("verificationPath", .string(verificationPath))
        return object.data()
    }

    /// Reads `storedData` (and rows `JSONEncoder` wrote); anything else is a damaged record.
    public init(stored value: JSONValue) throws(AuthError) {
        let damaged = AuthError("INTERNAL", "A stored SMS record is damaged.", kind: .internalError)
        func string(_ key: String) throws(AuthError) -> String {
            guard let text = value[key]?.stringValue else { throw damaged }
            return text
        }
        func optional(_ key: String) throws(AuthError) -> String? {
            guard let field = value[key], !field.isNull else { return nil }
            guard let text = field.stringValue else { throw damaged }
            return text
        }
        func number(_ key: String) throws(AuthError) -> Double {
            guard let number = value[key]?.doubleValue else { throw damaged }
            return number
        }
        guard let id = try number("id").truncatedInt64, let attempts = try number("attempts").truncatedInt,
            let purpose = SmsPurpose(rawValue: try string("purpose")),
            let status = SmsStatus(rawValue: try string("status")), let testNumber = value["testNumber"]?.boolValue
        else { throw damaged }
        var usedFor: SmsPurpose?
        if let used = try optional("usedFor") {
            guard let purpose = SmsPurpose(rawValue: used) else { throw damaged }
            usedFor = purpose
        }
        self.init(
            id: id, projectId: try string("projectId"), tenantId: try optional("tenantId"),
            phoneNumber: try string("phoneNumber"), code: try string("code"), text: try string("text"),
            purpose: purpose, usedFor: usedFor, sessionInfo: try string("sessionInfo"),
            sentAt: Date(timeIntervalSinceReferenceDate: try number("sentAt")),
            expiresAt: Date(timeIntervalSinceReferenceDate: try number("expiresAt")), status: status,
            testNumber: testNumber, attempts: attempts, verificationPath: try string("verificationPath"),
            localId: try optional("localId"), mfaEnrollmentId: try optional("mfaEnrollmentId"),
            clientIP: try optional("clientIP"))
    }
}
