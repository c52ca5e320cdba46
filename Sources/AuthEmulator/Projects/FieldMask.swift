import Foundation

/// `updateMask` handling for the v2 Config and Tenant resources: dotted field paths applied one
/// by one, as production and the Admin SDKs expect.
public enum FieldMask {
    /// Parses `a.b,c` (also tolerating spaces and repeated query values).
    public static func parse(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
    }

    /// Copies each masked path from `patch` into `target`; a path absent from the patch is cleared.
    /// A path that indexes into a string, number, bool or array of either side (`displayName.0`,
    /// `mfaConfig.enabledProviders.x`) changes nothing, as in firebase-tools.
    public static func apply(_ paths: [String], from patch: JSONValue, to target: JSONValue) -> JSONValue {
        var result = target
        for path in paths {
            let keys = path.split(separator: ".").map(String.init)
            guard !indexesIntoLeaf(keys, result), !indexesIntoLeaf(keys, patch) else { continue }
            result = result.setting(keys, to: patch.value(at: keys))
        }
        return result
    }

    /// Whether a parent of the last key holds something other than an object (or nothing).
    static func indexesIntoLeaf(_ keys: [String], _ value: JSONValue) -> Bool {
        var current: JSONValue? = value
        for key in keys.dropLast() {
            guard let node = current, node != .null else { return false }
            guard case .object = node else { return true }
            current = node[key]
        }
        if let node = current, case .object = node { return false }
        return current != nil && current != .null
    }
}

extension JSONValue {
    public func value(at keys: [String]) -> JSONValue? {
        var current: JSONValue? = self
        for key in keys { current = current?[key] }
        return current
    }

    public func value(at path: String) -> JSONValue? {
        value(at: path.split(separator: ".").map(String.init))
    }

    /// Returns a copy with the value at `keys` replaced (nil removes it), creating objects on the way.
    public func setting(_ keys: [String], to newValue: JSONValue?) -> JSONValue {
        guard let first = keys.first else { return newValue ?? .null }
        var object = objectValue ?? [:]
        if keys.count == 1 {
            object[first] = newValue
        } else {
            let child = object[first] ?? .object([:])
            object[first] = child.setting(Array(keys.dropFirst()), to: newValue)
        }
        return .object(object)
    }

    /// Deep merge: objects are merged key by key, anything else in `other` wins.
    public func merged(with other: JSONValue) -> JSONValue {
        guard case .object(var base) = self, case .object(let overlay) = other else { return other }
        for (key, value) in overlay {
            base[key] = base[key].map { $0.merged(with: value) } ?? value
        }
        return .object(base)
    }
}
