import AuthEmulator
import Foundation
import Hummingbird

/// The public keys of signed tokens (`token_signing: rs256`) at the paths of Google's key URLs,
/// host as the first path component as everywhere here: JWKS and X.509 certificates for ID tokens
/// (securetoken) and for session cookies. Empty sets while tokens are unsigned.
extension RouteTable {
    static var googleapis: String { "/www.googleapis.com" }

    func registerSigningKeyRoutes() {
        let emulator = self.emulator
        let jwks = [
            "\(Self.googleapis)/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
            "\(Self.toolkit)/v1/sessionCookiePublicKeys",
        ]
        api(.get, jwks, access: .open) { _ in try emulator.signingJWKS() }
        let certificates = [
            "\(Self.googleapis)/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
            "\(Self.legacy)/publicKeys",
        ]
        api(.get, certificates, access: .open) { _ in emulator.signingCertificates() }
    }
}
