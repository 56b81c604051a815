import ArgumentParser
import LoomCore
import LoomWorkspace

/// `host test` with no scenario to fail: the project's configuration errors (loom.json,
/// users.json, rules, flows, entry; plugins that fail to load) still make it exit 1.
enum ConfigurationCheck {
    static func exitOnErrors(_ engine: EngineOptions) throws {
        let ws = try engine.workspace(screen: nil)
        let d = ws.loadDiagnostics
        guard d.hasErrors else { return }
        Console.report(Diagnostics(d.items.filter { $0.severity == .error }))
        throw ExitCode(1)
    }
}
