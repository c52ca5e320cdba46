import Foundation

/// Per-project settings from the configuration file, in the v2 `Config` / `Tenant` shapes:
/// `{ "<project>": { "config": {…}, "tenants": { "<tenant>": {…} } } }`. Applied at start (and
/// on reload): keys given in the file win over what is stored; anything else stays as it is.
extension Emulator {
    public func applyProjectSeeds(_ projects: JSONValue) async throws {
        defer { settingsChanged() }
        guard let map = projects.objectValue else { throw SeedError("projects: must be a mapping of project ids") }
        for (projectId, seed) in map.sorted(by: { $0.key < $1.key }) {
            guard let fields = seed.objectValue else { throw SeedError("projects.\(projectId): must be a mapping") }
            for key in fields.keys where key != "config" && key != "tenants" {
                throw SeedError("projects.\(projectId).\(key): unknown key (expected config, tenants)")
            }
            if let config = fields["config"] {
                guard config.objectValue != nil else {
                    throw SeedError("projects.\(projectId).config: must be a mapping")
                }
                do {
                    try ConfigValidation.validateProjectConfig(config)
                } catch {
                    throw SeedError("projects.\(projectId).config: \(error.message)")
                }
                // The file's keys are merged over what the REST API stored, through its write path.
                _ = try await store.write { tx in
                    try await Emulator.writeProjectConfig(tx, projectId: projectId, patch: config) {
                        $0.merged(with: config)
                    }
                }
            }
            guard let tenants = fields["tenants"] else { continue }
            guard let tenantMap = tenants.objectValue else {
                throw SeedError("projects.\(projectId).tenants: must be a mapping of tenant ids")
            }
            for (tenantId, tenant) in tenantMap.sorted(by: { $0.key < $1.key }) {
                guard tenant.objectValue != nil else {
                    throw SeedError("projects.\(projectId).tenants.\(tenantId): must be a mapping")
                }
                do {
                    try ConfigValidation.validateTenant(tenant)
                } catch {
                    throw SeedError("projects.\(projectId).tenants.\(tenantId): \(error.message)")
                }
                _ = try await store.write { tx in
                    let current =
                        try await tx.tenant(projectId: projectId, tenantId: tenantId)
                        ?? ResourceDefaults.createdTenant(projectId: projectId, tenantId: tenantId)
                    return try await Emulator.writeTenant(tx, projectId: projectId, tenantId: tenantId, patch: tenant) {
                        current.merged(with: tenant)
                    }
                }
            }
        }
    }
}

/// A configuration-file problem, naming the key.
public struct SeedError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
