import Foundation

/// The v2 `smsRegionConfig` of a project or tenant: which regions SMS may go to. It is exactly
/// one of `allowByDefault: {disallowedRegions: [...]}` or `allowlistOnly: {allowedRegions: [...]}`
/// (ISO 3166 alpha-2 codes); without either, every region is allowed.
public struct SmsRegionPolicy: Sendable, Equatable {
    enum Rule: Sendable, Equatable {
        case allowAll
        case allowExcept(Set<String>)
        case allowOnly(Set<String>)
    }

    let rule: Rule

    public init(_ config: JSONValue?) {
        if let denied = config?.value(at: "allowByDefault") {
            rule = .allowExcept(Self.regions(denied["disallowedRegions"]))
        } else if let allowed = config?.value(at: "allowlistOnly") {
            rule = .allowOnly(Self.regions(allowed["allowedRegions"]))
        } else {
            rule = .allowAll
        }
    }

    /// Whether an SMS may be sent to `phoneNumber` (E.164). A number whose region is unknown is
    /// refused only by an allowlist.
    public func allows(phoneNumber: String) -> Bool {
        switch rule {
        case .allowAll: return true
        case .allowExcept(let denied): return Self.region(of: phoneNumber).map { !denied.contains($0) } ?? true
        case .allowOnly(let allowed): return Self.region(of: phoneNumber).map(allowed.contains) ?? false
        }
    }

    /// Production's answer to an SMS for a region the policy refuses.
    static let refused = AuthError(
        "OPERATION_NOT_ALLOWED", "SMS unable to be sent until this region enabled by the app developer.")

    /// The ISO 3166 region of an E.164 number, as libphonenumber assigns it.
    static func region(of phoneNumber: String) -> String? {
        let digits = phoneNumber.utf8.filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        for length in stride(from: min(digits.count, CallingCodeRegions.longestKey), through: 1, by: -1) {
            let key = String(decoding: digits.prefix(length), as: UTF8.self)
            if let region = CallingCodeRegions.byLeadingDigits[key] { return region }
        }
        return nil
    }

    private static func regions(_ value: JSONValue?) -> Set<String> {
        Set((value?.arrayValue ?? []).compactMap { $0.stringValue?.uppercased() })
    }

    /// Checks a PATCHed `smsRegionConfig` (null or `{}` clears it).
    static func validate(_ config: JSONValue?, path: String) throws(AuthError) {
        guard let config, config != .null else { return }
        guard let fields = config.objectValue else { throw AuthError.invalidJSON("/\(path) must be object") }
        let branches = ["allowByDefault", "allowlistOnly"].filter { fields[$0] != nil && fields[$0] != .null }
        if branches.count > 1 {
            throw AuthError("INVALID_CONFIG", "\(path) must set only one of allowByDefault and allowlistOnly")
        }
        if let unknown = fields.keys.first(where: { $0 != "allowByDefault" && $0 != "allowlistOnly" }) {
            throw AuthError("INVALID_CONFIG", "\(path).\(unknown) is not a field of smsRegionConfig")
        }
        guard let branch = branches.first else { return }
        let list = branch == "allowByDefault" ? "disallowedRegions" : "allowedRegions"
        guard let body = fields[branch]?.objectValue else {
            throw AuthError.invalidJSON("/\(path)/\(branch) must be object")
        }
        let value = body[list] ?? .null
        guard let regions = value == .null ? [] : value.arrayValue else {
            throw AuthError.invalidJSON("/\(path)/\(branch)/\(list) must be array")
        }
        for region in regions {
            guard let code = region.stringValue, code.count == 2, code.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
                throw AuthError(
                    "INVALID_CONFIG", "\(path).\(branch).\(list) must hold ISO 3166 alpha-2 region codes, e.g. \"US\"")
            }
        }
    }

    /// `allowByDefault` and `allowlistOnly` are a oneof: a PATCH that sets one clears the other,
    /// whatever its update mask named.
    static func keepOneBranch(_ resource: JSONValue, key: String, patch: JSONValue) -> JSONValue {
        guard let patched = patch[key], var config = resource[key]?.objectValue else { return resource }
        if patched["allowlistOnly"] != nil, patched["allowlistOnly"] != .null {
            config["allowByDefault"] = nil
        } else if patched["allowByDefault"] != nil, patched["allowByDefault"] != .null {
            config["allowlistOnly"] = nil
        } else {
            return resource
        }
        return resource.setting([key], to: .object(config))
    }
}
