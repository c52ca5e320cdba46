import CQREncode
import Foundation

/// A QR code (ISO 18004, drawn by Debian's libqrencode) as an SVG image: one dark square per
/// module, a four-module quiet zone, sized by the viewer. For the `otpauth://` URI of a TOTP
/// factor, so an authenticator app on a phone can scan it.
enum QRCodeImage {
    /// The modules, row by row (true: dark), or nil when the text does not fit a QR code.
    static func modules(_ text: String) -> [[Bool]]? {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        return (0..<width).map { row in
            (0..<width).map { column in code.pointee.data[row * width + column] & 1 == 1 }
        }
    }

    static func svg(_ text: String) -> String? {
        guard let modules = modules(text) else { return nil }
        let size = modules.count + 8
        var path = ""
        for (row, line) in modules.enumerated() {
            for (column, dark) in line.enumerated() where dark { path += "M\(column + 4) \(row + 4)h1v1h-1z" }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" shape-rendering="crispEdges">\
            <rect width="\(size)" height="\(size)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }

    /// The image as a `data:` URI for an `<img>` (the inspector's CSP allows `img-src data:`).
    static func dataURI(_ text: String) -> String? {
        svg(text).map { "data:image/svg+xml;base64," + Data($0.utf8).base64EncodedString() }
    }
}
