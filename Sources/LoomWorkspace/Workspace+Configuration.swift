import LoomCore
import LoomNavigation

/// The project's configuration checked as a whole, for every command: the named rules, the
/// flows (Lua and flows.json) and loom.json's `entry`. Each problem is located where it is
/// written, and an error makes every command exit 1.
extension Workspace {
    /// Registers loom.json's `rules` (or rules.json) after the plugins' rules.
    func registerNamedRules() -> Diagnostics {
        guard !project.namedRules.isEmpty else { return Diagnostics() }
        let file = project.namedRules[0].location.file
        return NamedRules.register(project.namedRules, into: factory, definedIn: file)
    }

    /// The flows' problems and an `entry` that names nothing (computed once).
    public func configurationDiagnostics() -> Diagnostics {
        if let d = cachedConfiguration { return d }
        let (flows, fd) = self.flows()
        var d = fd
        if let entry = flows.configuredEntry, flows[entry] == nil,
           let e = FlowValidation.entry(flows, screens: screenLocations(), at: project.valueLocations["entry"]) {
            d.append(e)
        }
        cachedConfiguration = d
        return d
    }
}

extension Project {
    /// A problem with something loom.json names (`key`, see `valueLocations`), located at the
    /// name when loom.json writes it.
    public func locatedAtName(_ d: Diagnostic, key: String) -> Diagnostic {
        guard let at = valueLocations[key] else { return d }
        var out = d
        out.location = at
        return out
    }
}
