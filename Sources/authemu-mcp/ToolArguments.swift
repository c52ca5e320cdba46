import AuthEmulatorTesting
import Foundation
import MCP

/// A tool call's arguments, checked against its schema's property names and read by type; a wrong
/// name or type is an `INVALID_ARGUMENT` error result.
struct ToolArguments {
    private let values: [String: Value]

    init(_ values: [String: Value], schema: Value) throws {
        let known = Set(schema.objectValue?["properties"]?.objectValue?.keys.map { $0 } ?? [])
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw Self.invalid("unknown argument \(unknown); this tool takes \(known.sorted().joined(separator: ", "))")
        }
        self.values = values.filter { !$0.value.isNull }
    }

    static func invalid(_ message: String) -> AuthEmulatorError {
        AuthEmulatorError(status: 0, code: "INVALID_ARGUMENT", message: message)
    }

    func required<T>(_ value: T?, _ name: String) throws -> T {
        guard let value else { throw Self.invalid("\(name) is required") }
        return value
    }

    func string(_ name: String) throws -> String? {
        try typed(name, "a string") { $0.stringValue }
    }

    func bool(_ name: String) throws -> Bool? {
        try typed(name, "true or false") { $0.boolValue }
    }

    func integer(_ name: String) throws -> Int? {
        try typed(name, "an integer") { value in
            value.intValue ?? value.doubleValue.flatMap { $0.rounded() == $0 ? Int(exactly: $0) : nil }
        }
    }

    func number(_ name: String) throws -> Double? {
        try typed(name, "a number") { value in value.doubleValue ?? value.intValue.map(Double.init) }
    }

    /// An object of string values, such as phone number to code.
    func stringMap(_ name: String) throws -> [String: String]? {
        try typed(name, "an object of strings") { value in
            guard let object = value.objectValue else { return nil }
            let strings = object.compactMapValues(\.stringValue)
            return strings.count == object.count ? strings : nil
        }
    }

    /// The JSON text of an array or object argument, as given.
    func json(_ name: String) throws -> Data? {
        try typed(name, "an array or an object") { value in
            guard value.arrayValue != nil || value.objectValue != nil else { return nil }
            return try? JSONEncoder().encode(value)
        }
    }

    private func typed<T>(_ name: String, _ kind: String, _ read: (Value) -> T?) throws -> T? {
        guard let value = values[name] else { return nil }
        guard let typed = read(value) else { throw Self.invalid("\(name) must be \(kind)") }
        return typed
    }
}
