import Foundation

/// Per-project settings from the configuration file, in the v2 `Config` / `Tenant` shapes:
/// `{ "<project>": { "config": {…}, "tenants": { "<tenant>": {…} } } }`. Applied at start (and
/// on reload): keys given in the file win over what is stored; anything else stays as it is.
extension Emulator {
    public func applyProjectSeeds(_ projects: JSONValue) async throws {
        defer { settingsChanged() }
        let seeds = try Self.projectSeeds(projects)
        // One transaction: a file that is refused in any part changes nothing (a reload keeps the
        // running configuration whole).
        _ = try await store.write { tx in
            for seed in seeds {
                do {
                    switch seed {
                    case .config(let projectId, let config):
                        // The file's keys are merged over what the REST API stored, through its write path.
                        _ = try await Emulator.writeProjectConfig(tx, projectId: projectId, patch: config) {
                            $0.merged(with: config)
                        }
                    case .tenant(let projectId, let tenantId, let tenant):
                        let current =
                            try await tx.tenant(projectId: projectId, tenantId: tenantId)
                            ?? ResourceDefaults.createdTenant(projectId: projectId, tenantId: tenantId)
                        _ = try await Emulator.writeTenant(tx, projectId: projectId, tenantId: tenantId, patch: tenant)
                        {
                            current.merged(with: tenant)
                        }
                    }
                } catch let error as AuthError {
                    throw SeedError("\(seed.path): \(error.message)")
                }
            }
        }
    }

    /// Every change the file asks for, each checked on its own before any is written.
    private static func projectSeeds(_ projects: JSONValue) throws -> [ProjectSeed] {
        guard let map = projects.objectValue else { throw SeedError("projects: must be a mapping of project ids") }
        var seeds: [ProjectSeed] = []
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
                seeds.append(.config(projectId, config))
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
                seeds.append(.tenant(projectId, tenantId, tenant))
            }
        }
        return seeds
    }
}

/// One change a config file's `projects` asks for.
private enum ProjectSeed: Sendable {
    case config(String, JSONValue)
    case tenant(String, String, JSONValue)

    var path: String {
        switch self {
        case .config(let projectId, _): "projects.\(projectId).config"
        case .tenant(let projectId, let tenantId, _): "projects.\(projectId).tenants.\(tenantId)"
        }
    }
}

/// A configuration-file problem, naming the key.
public struct SeedError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
