import AuthEmulator
import Foundation
import Hummingbird

/// The public keys of signed tokens (`token_signing: rs256`) at the paths of Google's key URLs,
/// host as the first path component as everywhere here: JWKS and X.509 certificates for ID tokens
/// (securetoken) and for session cookies. Empty sets while tokens are unsigned.
extension RouteTable {

    func registerSigningKeyRoutes() {
        let emulator = self.emulator
        let jwks = [
            "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com",
            "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys",
        ]
        api(.get, jwks, access: .open) { _ in try emulator.signingJWKS() }
        let certificates = [
            "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
            "/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys",
        ]
        api(.get, certificates, access: .open) { _ in emulator.signingCertificates() }
    }
}
