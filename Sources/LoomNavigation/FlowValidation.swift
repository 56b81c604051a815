import LoomCore
/// Static checks of a project's flows against its screens (`host check`): unknown start
/// screens, unknown screens and child flows named by flows.json, deep links to steps a
/// declarative flow does not handle, and an entry that names nothing.
public enum FlowValidation {
    /// - Parameters:
    ///   - screens: every known screen id, with its file's location.
    ///   - entryLocation: where loom.json's `entry` is written, for an unknown entry.
    public static func validate(
        _ flows: FlowSet, screens: [String: SourceLocation], entryLocation: SourceLocation? = nil
    ) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let screenIds = screens.keys.sorted()
        let flowNames = flows.names

        func screenHint(_ s: String) -> String { DidYouMean.hint(s, among: screenIds) }

        if let e = entry(flows, screens: screens, at: entryLocation) { out.append(e) }

        for name in flowNames {
            let flow = flows[name]!
            if screens[flow.start] == nil {
                out.append(.error(
                    "flow '\(name)' starts at unknown screen '\(flow.start)'" + screenHint(flow.start),
                    at: flow.startLocation ?? flow.location))
            }
            guard let declarative = flow.navigator as? DeclarativeFlow else { continue }
            for step in declarative.steps {
                for c in step.contributions {
                    switch c.action {
                    case .show(let kind, let screen, _):
                        if screens[screen] == nil {
                            out.append(.error(
                                "step '\(step.name)' of flow '\(name)' \(verb(kind)) unknown screen '\(screen)'" + screenHint(screen),
                                at: c.targetLocation))
                        }
                    case .flow(let child, _):
                        if flows[child] == nil {
                            out.append(.error(
                                "step '\(step.name)' of flow '\(name)' enters unknown flow '\(child)'"
                                    + DidYouMean.hint(child, among: flowNames),
                                at: c.targetLocation))
                        }
                    case .parent, .finish, .none:
                        break
                    }
                }
            }
            let handled = Set(declarative.steps.map(\.name))
            if !handled.contains("*") {
                for link in flow.links {
                    // The first step's name, unless a placeholder makes it up.
                    guard let first = link.steps.split(separator: ",").first,
                        let step = Step(action: String(first)), !step.name.contains("{")
                    else { continue }
                    if !handled.contains(step.name) {
                        out.append(.warning(
                            "deep link '\(link.pattern)' starts with step '\(step.name)', which flow '\(name)' does not handle"
                                + DidYouMean.hint(step.name, among: handled),
                            at: link.location ?? flow.location))
                    }
                }
            }
        }
        return out
    }

    /// loom.json's `entry` when it names neither a flow nor a screen (at `location`, where it
    /// is written).
    public static func entry(_ flows: FlowSet, screens: [String: SourceLocation], at location: SourceLocation?) -> Diagnostic? {
        guard let entry = flows.configuredEntry, flows[entry] == nil, screens[entry] == nil else { return nil }
        return .error(
            "entry '\(entry)' is neither a flow nor a screen" + DidYouMean.hint(entry, among: flows.names + screens.keys.sorted()),
            at: location)
    }

    static func verb(_ kind: ContributionKind) -> String {
        switch kind {
        case .push: return "pushes"
        case .present: return "presents"
        case .replace: return "replaces with"
        case .tab: return "switches to tab"
        default: return "shows"
        }
    }
}
