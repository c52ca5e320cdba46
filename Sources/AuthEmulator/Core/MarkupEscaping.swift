/// Text for HTML or XML: `&`, `<`, `>`, `"` and `'` as character references, so it can stand in
/// element content and in quoted attribute values alike.
public enum MarkupEscaping {
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
