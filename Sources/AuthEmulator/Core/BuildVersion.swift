import CBuildInfo

/// Which authemu this is. `number` is the one place the version is written: the Makefile (.deb),
/// scripts/image (the image's label), the OpenAPI document, the `Server` header, `authemu
/// --version`, CHANGELOG.md's newest release and deploy/debian/changelog all follow it, and
/// Tests/e2e/test_release.py checks that they agree.
public enum BuildVersion {
    public static let number = "0.1.0"

    /// The commit the binary was built from, as scripts/build-release recorded it; "unknown" for a
    /// build made without it.
    public static var commit: String { String(cString: authemu_build_commit()) }

    /// `0.1.0 (commit 0123456789ab)`.
    public static var description: String { "\(number) (commit \(commit))" }
}
