/// Reads what a sign-in needs from a SAML 2.0 `<Response>`: the first `NameID`, each
/// `<Attribute Name=…>` with its `AttributeValue`s, and the first `Audience`. One pass over the
/// bytes, each byte looked at a bounded number of times, so time is linear in the document (no
/// regular expression over a document: the backtracking of one made 64 KB take 45 s).
///
/// It reads well-formed XML's tags, attributes, text, character and the five named entity
/// references, CDATA, comments and processing instructions; a DTD is refused (no entity
/// expansion at all). Elements are matched by local name, whatever their namespace prefix.
/// Libxml2 (Foundation's `XMLParser`) would bring ICU's data a second time into the FROM-scratch
/// image (+32 MB); a document is at most `SamlAssertion.maxBytes` and nesting `maxDepth`.
struct SamlDocumentReader {
    static let maxDepth = 64

    var nameId: String?
    var audience: String?
    /// Attribute names in document order, each with its values.
    var attributes: [(name: String, values: [String])] = []

    private let bytes: [UInt8]
    private var index = 0
    /// Names of the elements open, outermost first.
    private var openElements: [Substring] = []
    private var depth: Int { openElements.count }
    /// The text being gathered for the innermost `NameID`, `Audience` or `AttributeValue`.
    private var capture: (element: Substring, depth: Int, text: [UInt8])?
    private var openAttribute: (name: String, depth: Int, values: [String])?

    init(_ document: [UInt8]) throws(AuthError) {
        bytes = document
        try read()
    }

    private static func unreadable(_ why: String) -> AuthError {
        AuthError("INVALID_IDP_RESPONSE ((SAMLResponse is not a readable SAML document: \(why).))")
    }

    private mutating func read() throws(AuthError) {
        while index < bytes.count {
            if bytes[index] != UInt8(ascii: "<") {
                let end = position(of: [UInt8(ascii: "<")], from: index) ?? bytes.count
                try gather(index, end, decode: true)
                index = end
            } else if starts(with: "<!--") {
                index = try after("-->", from: index + 4, what: "a comment")
            } else if starts(with: "<![CDATA[") {
                let end = try after("]]>", from: index + 9, what: "a CDATA section")
                try gather(index + 9, end - 3, decode: false)
                index = end
            } else if starts(with: "<?") {
                index = try after("?>", from: index + 2, what: "a processing instruction")
            } else if starts(with: "<!") {
                throw Self.unreadable("a DTD is not allowed")
            } else if starts(with: "</") {
                try endTag()
            } else {
                try startTag()
            }
        }
        guard depth == 0 else { throw Self.unreadable("an element is not closed") }
    }

    private mutating func startTag() throws(AuthError) {
        index += 1
        let name = try tagName()
        var tagAttributes: [(Substring, String)] = []
        while true {
            skipSpace()
            guard index < bytes.count else { throw Self.unreadable("a tag is not closed") }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                try opened(name, tagAttributes, empty: false)
                return
            }
            if starts(with: "/>") {
                index += 2
                try opened(name, tagAttributes, empty: true)
                return
            }
            tagAttributes.append(try attribute())
        }
    }

    private mutating func opened(_ name: Substring, _ tagAttributes: [(Substring, String)], empty: Bool)
        throws(AuthError)
    {
        openElements.append(name)
        guard depth <= Self.maxDepth else { throw Self.unreadable("elements are nested more than 64 deep") }
        switch Self.localName(name) {
        case "Attribute":
            let attributeName = tagAttributes.first { Self.localName($0.0) == "Name" }?.1
            if let attributeName, openAttribute == nil { openAttribute = (attributeName, depth, []) }
        case "NameID" where nameId == nil, "Audience" where audience == nil, "AttributeValue":
            if capture == nil { capture = (Self.localName(name), depth, []) }
        default: break
        }
        if empty { closed() }
    }

    private mutating func endTag() throws(AuthError) {
        index += 2
        let name = try tagName()
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
            throw Self.unreadable("an end tag is not closed")
        }
        index += 1
        guard openElements.last == name else { throw Self.unreadable("an end tag closes no element of its name") }
        closed()
    }

    private mutating func closed() {
        if let open = capture, open.depth == depth {
            let text = String(decoding: open.text, as: UTF8.self)
            switch open.element {
            case "NameID": nameId = text
            case "Audience": audience = text
            default: openAttribute?.values.append(text)
            }
            capture = nil
        }
        if let attribute = openAttribute, attribute.depth == depth {
            attributes.append((attribute.name, attribute.values))
            openAttribute = nil
        }
        openElements.removeLast()
    }

    private mutating func tagName() throws(AuthError) -> Substring {
        let start = index
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard index > start else { throw Self.unreadable("a tag has no name") }
        return Substring(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func attribute() throws(AuthError) -> (Substring, String) {
        let name = try tagName()
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
            throw Self.unreadable("an attribute has no value")
        }
        index += 1
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw Self.unreadable("an attribute value is not quoted")
        }
        let quote = bytes[index]
        guard let end = position(of: [quote], from: index + 1) else {
            throw Self.unreadable("an attribute value is not closed")
        }
        let value = try Self.decoded(bytes[(index + 1)..<end])
        index = end + 1
        return (name, String(decoding: value, as: UTF8.self))
    }

    /// Adds text to the open capture, if any (other text is skipped, its references unread).
    private mutating func gather(_ start: Int, _ end: Int, decode: Bool) throws(AuthError) {
        guard capture != nil, start < end else { return }
        let text = decode ? try Self.decoded(bytes[start..<end]) : Array(bytes[start..<end])
        capture?.text.append(contentsOf: text)
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func starts(with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return prefix.withUTF8Buffer { bytes[index..<(index + count)].elementsEqual($0) }
    }

    /// The index just past the next `terminator` at or after `from`.
    private func after(_ terminator: StaticString, from: Int, what: String) throws(AuthError) -> Int {
        let pattern = terminator.withUTF8Buffer { Array($0) }
        guard let found = position(of: pattern, from: from) else { throw Self.unreadable("\(what) is not closed") }
        return found + pattern.count
    }

    /// Where `pattern` (at most three bytes, none repeated at its start) next begins.
    private func position(of pattern: [UInt8], from: Int) -> Int? {
        var at = from
        while at + pattern.count <= bytes.count {
            if bytes[at] == pattern[0], bytes[at..<(at + pattern.count)].elementsEqual(pattern) { return at }
            at += 1
        }
        return nil
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "_"), UInt8(ascii: "-"),
            UInt8(ascii: "."), 0x80...:
            return true
        default: return false
        }
    }

    private static func localName(_ name: Substring) -> Substring {
        name.lastIndex(of: ":").map { name[name.index(after: $0)...] } ?? name
    }

    /// Text with its entity and character references replaced.
    private static func decoded(_ text: ArraySlice<UInt8>) throws(AuthError) -> [UInt8] {
        guard text.contains(UInt8(ascii: "&")) else { return Array(text) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var at = text.startIndex
        while at < text.endIndex {
            guard text[at] == UInt8(ascii: "&") else {
                out.append(text[at])
                at += 1
                continue
            }
            let limit = min(text.endIndex, at + 12)
            guard let semicolon = text[at..<limit].firstIndex(of: UInt8(ascii: ";")) else {
                throw unreadable("an & starts no reference")
            }
            let reference = String(decoding: text[(at + 1)..<semicolon], as: UTF8.self)
            out.append(contentsOf: try replacement(reference))
            at = semicolon + 1
        }
        return out
    }

    private static func replacement(_ reference: String) throws(AuthError) -> [UInt8] {
        switch reference {
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "amp": return [UInt8(ascii: "&")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default:
            let hex = reference.hasPrefix("#x") || reference.hasPrefix("#X")
            let digits = reference.dropFirst(hex ? 2 : 1)
            guard reference.hasPrefix("#"), let code = UInt32(digits, radix: hex ? 16 : 10),
                let scalar = Unicode.Scalar(code), code != 0
            else { throw unreadable("&\(reference); is not a known reference") }
            return Array(String(Character(scalar)).utf8)
        }
    }
}
