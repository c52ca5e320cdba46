import AuthEmulator
import Foundation

/// What `serve` and `exec` take from a firebase-tools project folder, as firebase-tools does for
/// the Auth emulator: `emulators.auth.host` / `.port` and `emulators.singleProjectMode` from
/// `firebase.json`, where the Functions emulator listens (`emulators.functions`, for auth
/// events), the default project from `.firebaserc`. Everything else in those files (hosting,
/// other emulators) belongs to other tools and is left alone.
struct FirebaseProjectFiles {
    /// The `firebase.json` that was read, if any.
    var firebaseJSON: String?
    /// The `.firebaserc` that was read, if any.
    var firebaserc: String?
    /// The settings they give, below the YAML file in precedence.
    var layer = ConfigLayer()

    /// Looks for `firebase.json` in `directory` and then in its parents (as firebase-tools finds
    /// its project root), and reads `.firebaserc` beside it. `explicit` names the file instead.
    static func discover(from directory: String, explicit: String? = nil) throws -> FirebaseProjectFiles {
        guard let file = explicit ?? findUpward("firebase.json", from: directory) else {
            return FirebaseProjectFiles()
        }
        var found = FirebaseProjectFiles(firebaseJSON: file)
        try found.readFirebaseJSON(file)
        let rc = (file as NSString).deletingLastPathComponent + "/.firebaserc"
        if FileManager.default.fileExists(atPath: rc) {
            found.firebaserc = rc
            try found.readFirebaserc(rc)
        }
        return found
    }

    static func findUpward(_ name: String, from directory: String) -> String? {
        var current = URL(fileURLWithPath: directory).standardizedFileURL
        while true {
            let candidate = current.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = current.deletingLastPathComponent()
            if parent.path == current.path { return nil }
            current = parent
        }
    }

    private mutating func readFirebaseJSON(_ file: String) throws {
        let root = try Self.jsonObject(file)
        // firebase-tools warns about other projects unless told not to.
        layer.singleProject = .warn
        guard let emulators = try Self.object(root["emulators"], key: "emulators", file: file) else { return }
        var single = true
        if let value = emulators["singleProjectMode"] {
            guard let flag = value.boolValue else {
                throw ConfigError(description: "\(file): key 'emulators.singleProjectMode' must be true or false")
            }
            single = flag
        }
        layer.singleProject = single ? .warn : .off
        if let functions = try Self.object(emulators["functions"], key: "emulators.functions", file: file) {
            // firebase-tools' defaults for an entry without them: 127.0.0.1, port 5001.
            let host = try Self.host(functions, key: "emulators.functions", file: file) ?? "127.0.0.1"
            let port = try Self.port(functions, key: "emulators.functions", file: file) ?? 5001
            try layer.set(
                "functions_emulator", "\(FunctionsEmulatorAddress.connectable(host)):\(port)",
                source: "\(file) emulators.functions")
        }
        guard let auth = try Self.object(emulators["auth"], key: "emulators.auth", file: file) else { return }
        if let host = try Self.host(auth, key: "emulators.auth", file: file) {
            try layer.set("host", host, source: file)
        }
        if let port = try Self.port(auth, key: "emulators.auth", file: file) {
            try layer.set("port", port, source: file)
        }
    }

    /// An emulator entry's `host`, when it has one.
    private static func host(_ entry: [String: JSONValue], key: String, file: String) throws -> String? {
        guard let host = entry["host"] else { return nil }
        guard let text = host.stringValue, !text.isEmpty else {
            throw ConfigError(description: "\(file): key '\(key).host' must be a host name or address")
        }
        return text
    }

    /// An emulator entry's `port`, when it has one: firebase-tools takes a number or a string of digits.
    private static func port(_ entry: [String: JSONValue], key: String, file: String) throws -> Int? {
        guard let port = entry["port"] else { return nil }
        let number =
            port.doubleValue.flatMap { $0 == $0.rounded() ? Int(exactly: $0) : nil }
            ?? port.stringValue.flatMap { Int($0) }
        guard let number, (1...65535).contains(number) else {
            throw ConfigError(description: "\(file): key '\(key).port' must be a port number from 1 to 65535")
        }
        return number
    }

    private mutating func readFirebaserc(_ file: String) throws {
        let root = try Self.jsonObject(file)
        guard let projects = try Self.object(root["projects"], key: "projects", file: file),
            let project = projects["default"]
        else { return }
        guard let id = project.stringValue, !id.isEmpty, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" })
        else {
            throw ConfigError(
                description:
                    "\(file): key 'projects.default' must be a project id (letters, digits, '-'), got '\(project.stringValue ?? "\(project)")'"
            )
        }
        try layer.set("project", id, source: file)
    }

    private static func object(_ value: JSONValue?, key: String, file: String) throws -> [String: JSONValue]? {
        guard let value, !value.isNull else { return nil }
        guard let object = value.objectValue else {
            throw ConfigError(description: "\(file): key '\(key)' must be an object")
        }
        return object
    }

    private static func jsonObject(_ file: String) throws -> [String: JSONValue] {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigError(description: "\(file): cannot be read")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            let reason = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw ConfigError(description: "\(file): not valid JSON (\(reason ?? context.debugDescription))")
        }
        guard let object = parsed.objectValue else {
            throw ConfigError(description: "\(file): the top level must be a JSON object")
        }
        return object
    }
}
